-- stg_seats: the players dealt into each hand, with their table position.
-- grain: one row per hand and player dealt in (site, hand_id, player).
-- inputs: seats (Parquet view). Seats marked sitting out were not dealt in
-- and are left out: they count in no statistic.
with

seats as (

    select * from seats

),

final as (

    select
        site,
        hand_id,
        seat,
        player,
        position,
        stack_start,
        coalesce(is_hero, false) as is_hero
    from seats
    where not coalesce(sitting_out, false)

)

select * from final
