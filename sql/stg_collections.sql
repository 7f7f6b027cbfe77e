-- stg_collections: what the site recorded each player collecting.
-- grain: one row per collected line (site, hand_id, seq).
-- inputs: collections (Parquet view). Amounts are after rake, in the hand's
-- minor unit; half is null where the site does not label it (PokerStars).
with

collections as (

    select * from collections

),

final as (

    select
        site,
        hand_id,
        seq,
        player,
        amount,
        pot_index,
        half,
        coalesce(board_index, 0) as board_index
    from collections

)

select * from final
