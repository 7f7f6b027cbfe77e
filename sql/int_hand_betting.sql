-- int_hand_betting: the shape of each hand's betting, street by street.
-- grain: one row per hand with actions (site, hand_id).
-- inputs: stg_actions.
-- The bets and raises of a street, in order, are all later models need to
-- know what any decision faced: a decision at seq s faced as many raises as
-- there are bets and raises before s on its street. Posted blinds are not
-- raises: preflop the big blind is level 1, preflop_raises[1] is the first
-- raise (the 2-bet, or open), [2] the 3-bet, [3] the 4-bet.
--   preflop_raises     [{seq, player, to_amount}] in order (lists are 1-based)
--   first_call_seq     seq of the first preflop call (a limp or a call)
--   posted_level       the largest live blind: what to call before a raise
--   flop_bets, turn_bets
--                      [{seq, player}] the street's bets and raises in order
--   pot                chips put in (uncalled bets returned are not in it)
--   folds              players who folded
with

actions as (

    select * from stg_actions

),

final as (

    select
        site,
        hand_id,
        list_sort(
            list({
                'seq': seq, 'player': player, 'to_amount': to_amount
            }) filter (where street = 0 and is_aggressive)
        ) as preflop_raises,
        min(seq) filter (where street = 0 and kind_code = 2) as first_call_seq,
        max(to_amount) filter (
            where street = 0 and kind_code = 5
        ) as posted_level,
        list_sort(
            list({'seq': seq, 'player': player}) filter (
                where street = 1 and is_aggressive
            )
        ) as flop_bets,
        list_sort(
            list({'seq': seq, 'player': player}) filter (
                where street = 2 and is_aggressive
            )
        ) as turn_bets,
        sum(chips_in) as pot,
        count(*) filter (where kind_code = 0) as folds
    from actions
    group by site, hand_id

)

select * from final
