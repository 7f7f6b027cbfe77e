-- agg_player_months: every statistic of every player by calendar month (UTC).
-- grain: one row per player, currency and month ('2009-11').
-- inputs: rpt_player_stats grouped by month.
with

final as (

    select * rename (group_value as month)
    from rpt_player_stats(group_dimension := 'month')

)

select * from final
