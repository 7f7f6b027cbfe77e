-- int_hand_players: one player's seat in one hand, what the player did and
-- what the player got.
-- grain: one row per hand and player dealt in (site, hand_id, player): a
-- seat in stg_seats (the parsers store a player once per hand).
-- inputs: stg_seats, stg_actions, stg_collections, stg_payouts.
-- The actions are summed per hand and player first (one pass, few
-- aggregates), the recorded collections and the audit's main-pot payouts
-- likewise, and each seat takes its player's sums (a player with no action,
-- collection or payout has zeros). (Summing the seats, actions, collections
-- and payouts stacked, in one pass, cost more: every aggregate then ran over
-- every stacked row.)
-- Each decision is one integer, seq * 32 + street * 8 + kind_code, so the
-- sorted list of them is in seq order; per-street counters are packed 8 bits
-- a street (street s in bits 8s to 8s+7) in one sum. The final select
-- unpacks them into plain columns:
--   <street>_decisions          decisions on the street
--   <street>_first_seq/_kind    the first decision (kind as text)
--   <street>_second_seq, preflop_third_seq, preflop_last_seq
--                               later decisions: a player acts again on a
--                               street only after a new bet or raise, so the
--                               raise level faced grows with each of them
--   preflop_raises, <street>_raises, is_vpip, is_pfr, postflop_* counts
--   has_folded, fold_street, fold_seq
--   put_in                      chips put in, uncalled bets returned deducted
--   posted, live_blind          posts and antes; the live blind (the street
--                               total before the first preflop decision)
--   collected                   what the site recorded the player collecting
--   got_high, got_low, got_whole, main_pot_collected
--                               the audit paid the player (a share of) the
--                               main pot's high half, low half, or the whole
--                               pot (no low, or the same winners both ways),
--                               main pot of the first board only
with

seats as (

    select * from stg_seats

),

actions as (

    select * from stg_actions

),

collections as (

    select * from stg_collections

),

payouts as (

    select * from stg_payouts

),

acted as (

    select
        site,
        hand_id,
        player,
        sum(chips_in) as put_in,
        sum(chips_in) filter (where kind_code >= 5) as posted,
        max(to_amount) filter (where street = 0 and kind_code = 5)
            as live_blind,
        list_sort(
            list(seq * 32 + street * 8 + kind_code) filter (
                where kind_code <= 4
            )
        ) as decisions,
        sum(cast(1 as bigint) << (8 * street)) filter (where kind_code <= 4)
            as decision_counts,
        sum(cast(1 as bigint) << (8 * street)) filter (where kind_code = 2)
            as call_counts,
        sum(cast(1 as bigint) << (8 * street)) filter (where kind_code = 3)
            as bet_counts,
        sum(cast(1 as bigint) << (8 * street)) filter (where kind_code = 4)
            as raise_counts
    from actions
    group by site, hand_id, player

),

collected as (

    select
        site,
        hand_id,
        player,
        sum(amount) as collected
    from collections
    group by site, hand_id, player

),

main_pot_paid as (

    select
        site,
        hand_id,
        player,
        bool_or(half = 'high') as got_high,
        bool_or(half = 'low') as got_low,
        bool_or(half = 'scoop') as got_whole,
        sum(amount) as main_pot_collected
    from payouts
    where pot_index = 0 and board_index = 0
    group by site, hand_id, player

),

grouped as (

    select
        seats.site,
        seats.hand_id,
        seats.player,
        seats.seat,
        seats.position,
        seats.stack_start,
        seats.is_hero,
        coalesce(acted.put_in, 0) as put_in,
        coalesce(acted.posted, 0) as posted,
        coalesce(acted.live_blind, 0) as live_blind,
        acted.decisions,
        coalesce(acted.decision_counts, 0) as decision_counts,
        coalesce(acted.call_counts, 0) as call_counts,
        coalesce(acted.bet_counts, 0) as bet_counts,
        coalesce(acted.raise_counts, 0) as raise_counts,
        coalesce(collected.collected, 0) as collected,
        coalesce(main_pot_paid.got_high, false) as got_high,
        coalesce(main_pot_paid.got_low, false) as got_low,
        coalesce(main_pot_paid.got_whole, false) as got_whole,
        coalesce(main_pot_paid.main_pot_collected, 0) as main_pot_collected
    from seats
    left join acted
        on
            seats.site = acted.site
            and seats.hand_id = acted.hand_id
            and seats.player = acted.player
    left join collected
        on
            seats.site = collected.site
            and seats.hand_id = collected.hand_id
            and seats.player = collected.player
    left join main_pot_paid
        on
            seats.site = main_pot_paid.site
            and seats.hand_id = main_pot_paid.hand_id
            and seats.player = main_pot_paid.player

),

split as (

    select
        *,
        list_filter(decisions, lambda d: d // 8 % 4 = 0) as preflop,
        list_filter(decisions, lambda d: d // 8 % 4 = 1) as flop,
        list_filter(decisions, lambda d: d // 8 % 4 = 2) as turn,
        list_filter(decisions, lambda d: d // 8 % 4 = 3) as river,
        list_filter(decisions, lambda d: d % 8 = 0)[1] as fold_code
    from grouped

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
        put_in,
        posted,
        live_blind,
        fold_code is not null as has_folded,
        fold_code // 8 % 4 as fold_street,
        fold_code // 32 as fold_seq,

        decision_counts & 255 as preflop_decisions,
        preflop[1] // 32 as preflop_first_seq,
        ['fold', 'check', 'call', 'bet', 'raise'][preflop[1] % 8 + 1]
            as preflop_first_kind,
        preflop[2] // 32 as preflop_second_seq,
        preflop[3] // 32 as preflop_third_seq,
        preflop[-1] // 32 as preflop_last_seq,
        ((bet_counts | raise_counts) & 255) > 0 as is_pfr,
        (bet_counts & 255) + (raise_counts & 255) as preflop_raises,
        ((call_counts | bet_counts | raise_counts) & 255) > 0 as is_vpip,

        (decision_counts >> 8) & 255 as flop_decisions,
        flop[1] // 32 as flop_first_seq,
        ['fold', 'check', 'call', 'bet', 'raise'][flop[1] % 8 + 1]
            as flop_first_kind,
        flop[2] // 32 as flop_second_seq,
        (raise_counts >> 8) & 255 as flop_raises,

        (decision_counts >> 16) & 255 as turn_decisions,
        turn[1] // 32 as turn_first_seq,
        ['fold', 'check', 'call', 'bet', 'raise'][turn[1] % 8 + 1]
            as turn_first_kind,
        turn[2] // 32 as turn_second_seq,
        (raise_counts >> 16) & 255 as turn_raises,

        (decision_counts >> 24) & 255 as river_decisions,
        ['fold', 'check', 'call', 'bet', 'raise'][river[1] % 8 + 1]
            as river_first_kind,
        (raise_counts >> 24) & 255 as river_raises,

        ((bet_counts >> 8) & 255)
        + ((bet_counts >> 16) & 255)
        + ((bet_counts >> 24) & 255) as postflop_bets,
        ((raise_counts >> 8) & 255)
        + ((raise_counts >> 16) & 255)
        + ((raise_counts >> 24) & 255) as postflop_raises,
        ((call_counts >> 8) & 255)
        + ((call_counts >> 16) & 255)
        + ((call_counts >> 24) & 255) as postflop_calls,
        coalesce(fold_code // 8 % 4 >= 1, false)::int as postflop_folds,

        collected,
        got_high,
        got_low,
        got_whole,
        main_pot_collected
    from split

)

select * from final
