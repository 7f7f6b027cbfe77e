-- int_hand_players: one player's seat in one hand, what the player did and
-- what the player got.
-- grain: one row per hand and player with a seat, an action, a collection or
-- a computed payout (site, hand_id, player); is_dealt marks the players dealt
-- in (a seat in stg_seats).
-- inputs: stg_seats, stg_actions, stg_collections, stg_payouts.
-- One pass over the seats, the actions, the recorded collections and the
-- audit's main-pot payouts, stacked, with few aggregates (this is the widest
-- table: a join of the seats with the actions would hold both in memory).
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

stacked as (

    select
        site,
        hand_id,
        player,
        0 as source,
        street,
        kind_code,
        chips_in,
        to_amount,
        seq * 32 + street * 8 + kind_code as decision_code,
        cast(1 as bigint) << (8 * street) as street_unit,
        null::varchar as half,
        null::bigint as amount,
        null::smallint as seat,
        null::varchar as position,
        null::bigint as stack_start,
        null::boolean as is_hero
    from actions

    union all

    select
        site,
        hand_id,
        player,
        1 as source,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        amount,
        null,
        null,
        null,
        null
    from collections

    union all

    select
        site,
        hand_id,
        player,
        2 as source,
        null,
        null,
        null,
        null,
        null,
        null,
        half,
        amount,
        null,
        null,
        null,
        null
    from payouts
    where pot_index = 0 and board_index = 0

    union all

    select
        site,
        hand_id,
        player,
        3 as source,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        seat,
        position,
        stack_start,
        is_hero
    from seats

),

grouped as (

    select
        site,
        hand_id,
        player,
        coalesce(sum(chips_in), 0) as put_in,
        coalesce(sum(chips_in) filter (where kind_code >= 5), 0) as posted,
        coalesce(max(to_amount) filter (
            where street = 0 and kind_code = 5
        ), 0) as live_blind,
        list_sort(list(decision_code) filter (where kind_code <= 4))
            as decisions,
        coalesce(sum(street_unit) filter (where kind_code <= 4), 0)
            as decision_counts,
        coalesce(sum(street_unit) filter (where kind_code = 2), 0)
            as call_counts,
        coalesce(sum(street_unit) filter (where kind_code = 3), 0)
            as bet_counts,
        coalesce(sum(street_unit) filter (where kind_code = 4), 0)
            as raise_counts,
        coalesce(sum(amount) filter (where source = 1), 0) as collected,
        coalesce(bool_or(half = 'high'), false) as got_high,
        coalesce(bool_or(half = 'low'), false) as got_low,
        coalesce(bool_or(half = 'scoop'), false) as got_whole,
        coalesce(sum(amount) filter (where source = 2), 0)
            as main_pot_collected,
        count(*) filter (where source = 3) > 0 as is_dealt,
        max(seat) as seat,
        max(position) as position,
        max(stack_start) as stack_start,
        coalesce(bool_or(is_hero), false) as is_hero
    from stacked
    group by site, hand_id, player

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
        is_dealt,
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
