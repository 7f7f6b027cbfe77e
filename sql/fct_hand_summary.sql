-- fct_hand_summary: the hands counted by table, stakes and day, for the
-- report's overview, site and stakes tables (pipeline.report), which would
-- otherwise read every hand of the dataset. Computed and stored per ingest
-- part, like fct_hand_players; counts of any selection of days are the sums
-- of its rows, and distinct tables or tournaments are distinct over its rows.
-- grain: one row per (site, table_name, tournament_id, limit_type, currency,
-- money_scale, blinds and bets, started_on) of an ingest part.
-- inputs: stg_hands.
-- The raw blinds and bets are kept: the report derives its stakes from them
-- as it always did; stakes_small_minor and stakes_big_minor (stg_hands) let
-- the facts manifest record each part's stakes and days.
with

hands as (

    select * from stg_hands

),

final as (

    select
        site,
        table_name,
        tournament_id,
        limit_type,
        currency,
        money_scale,
        small_blind,
        big_blind,
        small_bet,
        big_bet,
        stakes_small_minor,
        stakes_big_minor,
        started_on,
        count(*)::bigint as hands,
        min(started_at) as first_started_at,
        max(started_at) as last_started_at
    from hands
    group by all

)

select * from final
