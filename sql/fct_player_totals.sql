-- fct_player_totals: each account's statistics counts over every hand of
-- one ingest part (fct_player_counts summed over days, positions and stakes),
-- stored per part: statistics with no filter on the hands, or grouped by
-- site, add up one row per account and part (rpt_player_stats).
-- grain: one row per (site, account, currency) of an ingest part.
-- inputs: fct_player_counts.
with

counts as (

    select * from fct_player_counts

),

final as (

    select
        site,
        account,
        currency,
        any_value(money_scale) as money_scale,
        cast(sum(columns(lambda c: c not in (
            'site', 'account', 'currency', 'money_scale', 'position', 'game',
            'limit_type', 'stakes', 'stakes_small_minor', 'stakes_big_minor',
            'started_on', 'month'
        ) and c not like 'net_won_big_%')) as bigint),
        sum(columns(lambda c: c like 'net_won_big_%'))
    from counts
    group by site, account, currency

)

select * from final
