-- stg_payouts: the audit's computed payments (what the rules give each player).
-- grain: one row per (site, hand_id, pot_index, board_index, half, player).
-- inputs: audit_payouts (Parquet view over DATASET/audit/payouts; empty until
-- the audit has run). half is high, low or scoop (a whole pot: no qualifying
-- low, uncontested, or the same players won both halves).
with

payouts as (

    select * from audit_payouts

),

final as (

    select
        site,
        hand_id,
        pot_index,
        board_index,
        half,
        player,
        amount
    from payouts

)

select * from final
