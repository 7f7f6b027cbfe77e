-- int_hands: each hand with everything the per-player flags need to know
-- about the hand as a whole, as plain columns.
-- grain: one row per hand (site, hand_id).
-- inputs: stg_hands, stg_seats, stg_collections, int_hand_betting,
-- int_hand_pots.
-- Seqs of bets that did not happen are 2147483647 (after everything), so a
-- decision "between the open and the 3-bet" is a plain comparison.
--   preflop_raise_seqs, preflop_raise_levels
--                        seq and street total of each preflop raise in order
--   open_seq, three_bet_seq, four_bet_seq; opener, three_bettor
--   preflop_aggressor    the last preflop raiser (the c-bet candidate)
--   first_call_seq       the first preflop call (a limp or a call)
--   posted_level         the largest live blind
--   is_steal_pot         the open came from CO, BTN or SB with no call before
--   flop_bet_seq, flop_raise_seq, flop_bettor, and the same for the turn:
--                        the first bet of the street, the raise of it, and
--                        who bet (a c-bet when it is the preflop aggressor)
--   players_unfolded     players dealt in who never folded
--   collected            what the site recorded as paid out
--   is_balanced          collected + rake = chips put in (PokerTracker drops
--                        unbalanced hands; hilo counts them, see stats)
--   is_main_pot_audited, main_pot_*
--                        the audit paid the main pot, and how (int_hand_pots)
--   pot                  chips put in by everyone (the rake shares' base)
with

hands as (

    select * from stg_hands

),

seats as (

    select * from stg_seats

),

collections as (

    select * from stg_collections

),

betting as (

    select * from int_hand_betting

),

pots as (

    select * from int_hand_pots

),

steal_seats as (

    select
        site,
        hand_id,
        player
    from seats
    where position in ('CO', 'BTN', 'SB')

),

collected as (

    select
        site,
        hand_id,
        sum(amount) as collected
    from collections
    group by site, hand_id

),

joined as (

    select
        hands.*,
        coalesce(betting.preflop_raises, []) as preflop_raises,
        coalesce(betting.flop_bets, []) as flop_bets,
        coalesce(betting.turn_bets, []) as turn_bets,
        coalesce(betting.first_call_seq, 2147483647) as first_call_seq,
        coalesce(betting.posted_level, 0) as posted_level,
        coalesce(betting.pot, 0) as pot,
        coalesce(betting.folds, 0) as folds,
        steal_seats.player is not null as is_steal_seat_open,
        coalesce(collected.collected, 0) as collected,
        pots.site is not null as is_main_pot_audited,
        pots.pot_amount as main_pot_amount,
        coalesce(pots.has_low, false) as main_pot_has_low,
        coalesce(pots.high_winners, 0) as main_pot_high_winners,
        coalesce(pots.low_winners, 0) as main_pot_low_winners,
        coalesce(pots.whole_winners, 0) as main_pot_whole_winners
    from hands
    left join betting
        on hands.site = betting.site and hands.hand_id = betting.hand_id
    left join steal_seats
        on
            hands.site = steal_seats.site
            and hands.hand_id = steal_seats.hand_id
            and betting.preflop_raises[1].player = steal_seats.player
    left join collected
        on hands.site = collected.site and hands.hand_id = collected.hand_id
    left join pots
        on hands.site = pots.site and hands.hand_id = pots.hand_id

),

final as (

    select
        site,
        hand_id,
        tournament_id,
        is_tournament,
        table_name,
        game,
        limit_type,
        currency,
        money_scale,
        small_blind,
        big_blind,
        big_bet,
        button_seat,
        players_dealt,
        started_at,
        started_on,
        month,
        stakes,
        stakes_small_minor,
        stakes_big_minor,
        has_flop,
        is_anonymous,
        rake,
        pot,
        list_transform(preflop_raises, lambda r: r.seq) as preflop_raise_seqs,
        list_transform(preflop_raises, lambda r: r.to_amount)
            as preflop_raise_levels,
        coalesce(preflop_raises[1].seq, 2147483647) as open_seq,
        coalesce(preflop_raises[2].seq, 2147483647) as three_bet_seq,
        coalesce(preflop_raises[3].seq, 2147483647) as four_bet_seq,
        preflop_raises[1].player as opener,
        preflop_raises[2].player as three_bettor,
        preflop_raises[-1].player as preflop_aggressor,
        first_call_seq,
        posted_level,
        coalesce(
            is_steal_seat_open and first_call_seq > preflop_raises[1].seq,
            false
        ) as is_steal_pot,
        coalesce(flop_bets[1].seq, 2147483647) as flop_bet_seq,
        coalesce(flop_bets[2].seq, 2147483647) as flop_raise_seq,
        flop_bets[1].player as flop_bettor,
        coalesce(turn_bets[1].seq, 2147483647) as turn_bet_seq,
        coalesce(turn_bets[2].seq, 2147483647) as turn_raise_seq,
        turn_bets[1].player as turn_bettor,
        players_dealt - folds as players_unfolded,
        collected,
        collected + rake = pot as is_balanced,
        is_main_pot_audited,
        main_pot_amount,
        main_pot_has_low,
        main_pot_high_winners,
        main_pot_low_winners,
        main_pot_whole_winners
    from joined

)

select * from final
