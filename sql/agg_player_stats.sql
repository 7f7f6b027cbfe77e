-- agg_player_stats: every statistic of every player over all hands.
-- grain: one row per player and currency (site lists the player's sites).
-- inputs: rpt_player_stats (no filter, no grouping dimension).
with

final as (

    select * exclude (group_value) from rpt_player_stats()

)

select * from final
