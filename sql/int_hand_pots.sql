-- int_hand_pots: how the audit split each hand's main pot.
-- grain: one row per hand the audit paid (site, hand_id).
-- inputs: stg_payouts.
-- The main pot (pot_index 0) of the first board is the pot every player at
-- a showdown contests; side pots and a second run-out are left out of the
-- hi/lo flags (net won counts them). A player has at most one payment per
-- half of a pot, so counting payments counts winners.
--   has_low          a qualifying low took half of it
--   high_winners, low_winners
--                    players sharing the high half, the low half
--   whole_winners    players sharing it whole (no qualifying low, or the
--                    same players won both halves)
--   pot_amount       what it paid out (after rake)
with

payouts as (

    select * from stg_payouts

),

final as (

    select
        site,
        hand_id,
        count(*) filter (where half = 'low') > 0 as has_low,
        count(*) filter (where half = 'high') as high_winners,
        count(*) filter (where half = 'low') as low_winners,
        count(*) filter (where half = 'scoop') as whole_winners,
        sum(amount) as pot_amount
    from payouts
    where pot_index = 0 and board_index = 0
    group by site, hand_id

)

select * from final
