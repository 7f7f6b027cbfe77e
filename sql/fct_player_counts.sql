-- fct_player_counts: every numerator and denominator of the player
-- statistics (rpt_player_stats), summed per account and per value of every
-- dimension the statistics filter or group by: each account's day at one
-- stakes in one position. Computed and stored per ingest part, like
-- fct_hand_players; statistics add up these rows instead of every hand.
-- grain: one row per (site, account, currency, position, game, limit_type,
-- stakes, started_on) of an ingest part; players at anonymous tables
-- (account null) give no row.
-- inputs: fct_hand_players.
-- Every count is an exact integer, so the counts of any selection of these
-- rows are the sums of its counts; only the two big-blind sums are floats.
-- The counts of the statistics are declared in pipeline/statistics.py: the
-- `-- @counts` line below is replaced by them (pipeline.stats.model_files).
with

hand_players as (

    select * from fct_hand_players
    where account is not null

),

final as (

    select
        site,
        account,
        currency,
        money_scale,
        position,
        game,
        limit_type,
        stakes,
        stakes_small_minor,
        stakes_big_minor,
        started_on,
        month,
        count(*)::bigint as hands,
        -- @counts
        count_if(not is_balanced)::bigint as unbalanced_hands
    from hand_players
    group by all

)

select * from final
