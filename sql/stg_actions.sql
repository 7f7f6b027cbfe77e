-- stg_actions: every recorded action, with the chips it moved and its class.
-- grain: one row per action (site, hand_id, seq).
-- inputs: actions (Parquet view).
--   kind_code     decisions 0 fold, 1 check, 2 call, 3 bet, 4 raise; posts
--                 5 (small and big blind, live), 6 (dead blind, ante);
--                 7 anything else (uncalled bet returned, show, muck)
--   is_decision   a fold, check, call, bet or raise (posts are not)
--   is_aggressive a bet or raise
--   chips_in      chips the action put into the pot (posts, antes, calls,
--                 bets, raises), negative for an uncalled bet returned
with

actions as (

    select * from actions

),

coded as (

    select
        *,
        case kind
            when 'fold' then 0
            when 'check' then 1
            when 'call' then 2
            when 'bet' then 3
            when 'raise' then 4
            when 'post_sb' then 5
            when 'post_bb' then 5
            when 'post_dead' then 6
            when 'ante' then 6
            else 7
        end::utinyint as kind_code
    from actions

),

final as (

    select
        site,
        hand_id,
        seq,
        street,
        player,
        kind,
        kind_code,
        amount,
        to_amount,
        coalesce(is_all_in, false) as is_all_in,
        kind_code <= 4 as is_decision,
        kind_code in (3, 4) as is_aggressive,
        case
            when kind_code between 2 and 6 then coalesce(amount, 0)
            when kind = 'uncalled_return' then -coalesce(amount, 0)
            else 0
        end as chips_in
    from coded

)

select * from final
