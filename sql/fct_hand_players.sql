-- fct_hand_players: one player's hand as flags: each statistic's chance (its
-- denominator) and whether it was taken (its numerator), plus money.
-- grain: one row per hand and player dealt in (site, hand_id, player).
-- inputs: int_hand_players (the players dealt in), int_hands.
-- account: the player's screen name on the site (identity = site, account);
-- at anonymous tables (int_hands.is_anonymous) '[ME]' for the hero and null
-- for everyone else, whose position labels name nobody.
-- A decision at seq s faced the bets and raises of its street made before s
-- (int_hands: open_seq, three_bet_seq, four_bet_seq; flop_bet_seq and
-- flop_raise_seq; the same for the turn). Seqs of bets that did not happen
-- are 2147483647, of a player's decisions that did not happen -1, so "faced
-- exactly one raise" is a plain comparison: open_seq < s <= three_bet_seq
-- (the 3-bettor's own decision is the 3-bet, and it faced one raise). A
-- player acts again on a street only after a new raise, so the first two or
-- three decisions are enough. docs/stats.md gives every definition and where
-- it differs from PokerTracker 4 and fpdb:
--   walk             no preflop decision (folded round to the big blind, or
--                    all in from a post): out of the VPIP and PFR bases
--   pfr chance       two or more preflop decisions, or one with chips left
--                    above the call and, in fixed limit, the betting not
--                    capped (4 bets; no cap heads-up)
--   steal chance     CO, BTN or SB (the heads-up button is the SB) with
--                    every earlier player folded; the steal is a raise
--   fold to steal    SB or BB whose first decision faces a steal and nobody
--                    else in: no call, no other raise
--   showdown         two or more players never folded (mucking at the
--                    showdown is not folding)
--   rake paid        the hand's rake R shared in proportion to the chips c
--                    a player put into the pot P: R * c / P, kept in
--                    millionths of the minor unit (rounded down) so that
--                    sums over many hands stay exact to the cent
with

hands as (

    select * from int_hands

),

actions as (

    select * from int_hand_players

),

joined as (

    select
        actions.site,
        actions.hand_id,
        actions.player,
        actions.seat,
        actions.position,
        actions.stack_start,
        actions.is_hero,
        hands.tournament_id,
        hands.is_tournament,
        hands.table_name,
        hands.game,
        hands.limit_type,
        hands.currency,
        hands.money_scale,
        hands.small_blind,
        hands.big_blind,
        coalesce(hands.big_bet, 2 * hands.big_blind) as big_bet,
        hands.stakes,
        hands.stakes_small_minor,
        hands.stakes_big_minor,
        hands.started_at,
        hands.started_on,
        hands.month,
        hands.players_dealt,
        hands.has_flop,
        hands.is_anonymous,
        hands.rake as hand_rake,
        hands.pot as hand_pot,
        hands.is_balanced,
        hands.is_main_pot_audited,
        hands.main_pot_amount,
        hands.preflop_raise_seqs,
        hands.preflop_raise_levels,
        hands.open_seq,
        hands.three_bet_seq,
        hands.four_bet_seq,
        hands.opener,
        hands.three_bettor,
        hands.preflop_aggressor,
        hands.first_call_seq,
        hands.posted_level,
        hands.is_steal_pot,
        hands.flop_bet_seq,
        hands.flop_raise_seq,
        hands.flop_bettor,
        hands.turn_bet_seq,
        hands.turn_raise_seq,
        hands.turn_bettor,
        hands.players_unfolded,
        coalesce(actions.put_in, 0) as put_in,
        coalesce(actions.posted, 0) as posted,
        coalesce(actions.live_blind, 0) as live_blind,
        coalesce(actions.has_folded, false) as has_folded,
        actions.fold_street,
        actions.fold_seq,
        coalesce(actions.preflop_decisions, 0) as preflop_decisions,
        coalesce(actions.preflop_first_seq, -1) as preflop_first_seq,
        actions.preflop_first_kind,
        coalesce(actions.preflop_second_seq, -1) as preflop_second_seq,
        coalesce(actions.preflop_third_seq, -1) as preflop_third_seq,
        coalesce(actions.preflop_last_seq, -1) as preflop_last_seq,
        coalesce(actions.preflop_raises, 0) as preflop_raise_count,
        coalesce(actions.is_vpip, false) as is_vpip,
        coalesce(actions.is_pfr, false) as is_pfr,
        coalesce(actions.postflop_bets, 0) as postflop_bets,
        coalesce(actions.postflop_raises, 0) as postflop_raises,
        coalesce(actions.postflop_calls, 0) as postflop_calls,
        coalesce(actions.postflop_folds, 0) as postflop_folds,
        coalesce(actions.flop_decisions, 0) as flop_decisions,
        coalesce(actions.flop_first_seq, -1) as flop_first_seq,
        actions.flop_first_kind,
        coalesce(actions.flop_second_seq, -1) as flop_second_seq,
        coalesce(actions.flop_raises, 0) as flop_raises,
        coalesce(actions.turn_decisions, 0) as turn_decisions,
        coalesce(actions.turn_first_seq, -1) as turn_first_seq,
        actions.turn_first_kind,
        coalesce(actions.turn_second_seq, -1) as turn_second_seq,
        coalesce(actions.turn_raises, 0) as turn_raises,
        coalesce(actions.river_decisions, 0) as river_decisions,
        actions.river_first_kind,
        coalesce(actions.river_raises, 0) as river_raises,
        coalesce(actions.collected, 0) as collected,
        coalesce(actions.main_pot_collected, 0) as main_pot_collected,
        coalesce(actions.got_high, false) as got_high,
        coalesce(actions.got_low, false) as got_low,
        coalesce(actions.got_whole, false) as got_whole,
        hands.main_pot_has_low,
        hands.main_pot_high_winners,
        hands.main_pot_low_winners,
        hands.main_pot_whole_winners
    from actions
    inner join hands
        on actions.site = hands.site and actions.hand_id = hands.hand_id

),

situation as (

    -- the raises in front of the first preflop decision, and what it cost
    select
        *,
        len(list_filter(
            preflop_raise_seqs, lambda s: s < preflop_first_seq
        )) as first_raises_before,
        coalesce(first_call_seq < preflop_first_seq, false)
            as first_after_call
    from joined

),

flagged as (

    select
        *,
        case
            when first_raises_before = 0 then posted_level
            else preflop_raise_levels[first_raises_before]
        end - live_blind as first_to_call,
        preflop_decisions = 0 as is_walk,
        has_flop and coalesce(fold_street, 9) > 0 as saw_flop,
        not has_folded and players_unfolded >= 2 as went_to_showdown,
        not has_folded and players_unfolded >= 2 and is_main_pot_audited
            as is_hilo_showdown,
        coalesce(opener = player, false) as is_opener,
        coalesce(opener <> player, false)
        and (
            (
                preflop_first_seq > open_seq
                and preflop_first_seq <= three_bet_seq
            )
            or (
                preflop_second_seq > open_seq
                and preflop_second_seq <= three_bet_seq
            )
        ) as faced_two_bet,
        coalesce(three_bettor = player, false) as made_three_bet,
        preflop_decisions > 0
        and first_raises_before = 1
        and live_blind = 0 as faced_two_bet_cold,
        coalesce(
            (
                preflop_first_seq > three_bet_seq
                and preflop_first_seq <= four_bet_seq
            )
            or (
                preflop_second_seq > three_bet_seq
                and preflop_second_seq <= four_bet_seq
            )
            or (
                preflop_third_seq > three_bet_seq
                and preflop_third_seq <= four_bet_seq
            ),
            false
        ) as faced_three_bet,
        coalesce(
            fold_street = 0
            and fold_seq > three_bet_seq
            and fold_seq < four_bet_seq,
            false
        ) as folded_to_three_bet,
        preflop_last_seq > three_bet_seq
        and three_bet_seq < 2147483647 as faced_three_bet_or_more,
        preflop_raise_count
        - coalesce(opener = player, false)::int
        - coalesce(three_bettor = player, false)::int > 0 as made_four_bet,
        coalesce(
            position in ('CO', 'BTN', 'SB')
            and preflop_decisions > 0
            and first_raises_before = 0
            and not first_after_call,
            false
        ) as steal_chance,
        coalesce(
            position in ('SB', 'BB')
            and is_steal_pot
            and opener <> player
            and preflop_decisions > 0
            and first_raises_before = 1
            and not first_after_call,
            false
        ) as fold_to_steal_chance,
        coalesce(player = preflop_aggressor, false) as is_preflop_aggressor,
        coalesce(flop_bettor = preflop_aggressor, false) as is_flop_cbet_pot,
        coalesce(
            flop_bettor = preflop_aggressor
            and turn_bettor = preflop_aggressor,
            false
        ) as is_turn_cbet_pot,
        (flop_first_seq > flop_bet_seq and flop_first_seq <= flop_raise_seq)
        or (
            flop_second_seq > flop_bet_seq and flop_second_seq <= flop_raise_seq
        ) as flop_faced_one_bet,
        coalesce(
            fold_street = 1
            and fold_seq > flop_bet_seq
            and fold_seq < flop_raise_seq,
            false
        ) as flop_folded_to_one_bet,
        (turn_first_seq > turn_bet_seq and turn_first_seq <= turn_raise_seq)
        or (
            turn_second_seq > turn_bet_seq and turn_second_seq <= turn_raise_seq
        ) as turn_faced_one_bet,
        coalesce(
            fold_street = 2
            and fold_seq > turn_bet_seq
            and fold_seq < turn_raise_seq,
            false
        ) as turn_folded_to_one_bet,
        case
            when hand_rake > 0 and hand_pot > 0 and put_in > 0
                then
                    cast(hand_rake as hugeint) * put_in * 1000000 // hand_pot
            else 0
        end as rake_paid_micros
    from situation

),

final as (

    select
        site,
        hand_id,
        player,
        seat,
        position,
        stack_start,
        is_hero,
        case
            when not is_anonymous then player
            when is_hero then '[ME]'
        end as account,
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
        stakes,
        stakes_small_minor,
        stakes_big_minor,
        started_at,
        started_on,
        month,
        players_dealt,

        -- preflop
        is_walk,
        is_vpip,
        is_pfr,
        preflop_decisions >= 2
        or (
            preflop_decisions = 1
            and stack_start - posted > first_to_call
            and not (
                limit_type = 'FL'
                and players_dealt > 2
                and first_raises_before + 1 >= 4
            )
        ) as pfr_chance,
        is_opener,
        faced_two_bet,
        made_three_bet,
        faced_three_bet,
        folded_to_three_bet,
        faced_three_bet_or_more,
        made_four_bet,
        steal_chance,
        steal_chance and preflop_first_kind in ('bet', 'raise') as made_steal,
        fold_to_steal_chance,
        fold_to_steal_chance and preflop_first_kind = 'fold'
            as folded_to_steal,
        preflop_decisions > 0 and first_raises_before = 0 and first_to_call > 0
            as limp_chance,
        preflop_decisions > 0
        and first_raises_before = 0
        and first_to_call > 0
        and preflop_first_kind = 'call' as made_limp,
        faced_two_bet_cold,
        faced_two_bet_cold and preflop_first_kind = 'call' as made_cold_call,

        -- postflop
        postflop_bets,
        postflop_raises,
        postflop_calls,
        postflop_folds,
        is_preflop_aggressor
        and flop_decisions > 0
        and flop_first_seq <= flop_bet_seq as flop_cbet_chance,
        is_preflop_aggressor
        and flop_decisions > 0
        and flop_first_seq <= flop_bet_seq
        and flop_first_kind = 'bet' as made_flop_cbet,
        is_preflop_aggressor
        and flop_decisions > 0
        and flop_first_seq <= flop_bet_seq
        and flop_first_kind = 'bet'
        and turn_decisions > 0
        and turn_first_seq <= turn_bet_seq as turn_cbet_chance,
        is_preflop_aggressor
        and flop_decisions > 0
        and flop_first_seq <= flop_bet_seq
        and flop_first_kind = 'bet'
        and turn_decisions > 0
        and turn_first_seq <= turn_bet_seq
        and turn_first_kind = 'bet' as made_turn_cbet,
        is_flop_cbet_pot and not is_preflop_aggressor and flop_faced_one_bet
            as fold_to_flop_cbet_chance,
        is_flop_cbet_pot
        and not is_preflop_aggressor
        and flop_folded_to_one_bet as folded_to_flop_cbet,
        is_turn_cbet_pot and not is_preflop_aggressor and turn_faced_one_bet
            as fold_to_turn_cbet_chance,
        is_turn_cbet_pot
        and not is_preflop_aggressor
        and turn_folded_to_one_bet as folded_to_turn_cbet,
        coalesce(flop_first_kind = 'check' and flop_decisions >= 2, false)
            as flop_check_raise_chance,
        coalesce(flop_first_kind = 'check' and flop_raises > 0, false)
            as made_flop_check_raise,
        coalesce(
            flop_first_kind = 'check' and flop_decisions >= 2, false
        )::int
        + coalesce(
            turn_first_kind = 'check' and turn_decisions >= 2, false
        )::int
        + coalesce(
            river_first_kind = 'check' and river_decisions >= 2, false
        )::int as check_raise_chances,
        coalesce(flop_first_kind = 'check' and flop_raises > 0, false)::int
        + coalesce(turn_first_kind = 'check' and turn_raises > 0, false)::int
        + coalesce(river_first_kind = 'check' and river_raises > 0, false)::int
            as check_raises,

        -- showdown
        saw_flop,
        went_to_showdown,
        went_to_showdown and collected > 0 as won_at_showdown,
        not went_to_showdown and collected > 0 as won_without_showdown,

        -- money, in the hand's minor unit
        put_in,
        collected,
        collected - put_in as net_won,
        rake_paid_micros,
        is_balanced,

        -- hi/lo, from the audit's payouts of the main pot, at a showdown
        is_hilo_showdown,
        main_pot_amount,
        main_pot_collected,
        is_hilo_showdown and (got_high or got_whole) as won_high,
        is_hilo_showdown and got_low as won_low,
        -- sole collector: the whole pot alone, or both halves alone
        is_hilo_showdown
        and (
            (got_whole and main_pot_whole_winners = 1)
            or (
                got_high
                and got_low
                and main_pot_high_winners = 1
                and main_pot_low_winners = 1
            )
        ) as is_scoop,
        is_hilo_showdown
        and main_pot_has_low
        and got_high
        and not got_low as is_high_only,
        is_hilo_showdown
        and main_pot_has_low
        and got_low
        and not got_high as is_low_only,
        -- one half only, shared with exactly one other winner: a quarter
        is_hilo_showdown
        and main_pot_has_low
        and (
            (got_high and not got_low and main_pot_high_winners = 2)
            or (got_low and not got_high and main_pot_low_winners = 2)
        ) as is_quartered,
        -- both halves, not alone (e.g. the high alone and half the low)
        is_hilo_showdown
        and got_high
        and got_low
        and (main_pot_high_winners > 1 or main_pot_low_winners > 1)
            as is_three_quartered,
        is_hilo_showdown and got_whole and main_pot_whole_winners >= 2
            as is_chopped
    from flagged

)

select * from final
