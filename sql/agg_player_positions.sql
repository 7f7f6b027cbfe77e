-- agg_player_positions: every statistic of every player by table position.
-- grain: one row per player, currency and position (BTN, SB, BB, UTG, ...).
-- inputs: rpt_player_stats grouped by position.
with

final as (

    select * rename (group_value as position)
    from rpt_player_stats(group_dimension := 'position')

)

select * from final
