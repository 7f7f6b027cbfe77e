-- rpt_player_stats: player statistics over a selection of hands (a table
-- macro: the parameters filter and group; every one is optional).
-- grain: one row per player identity, currency and group_value (null unless
-- group_dimension is set). A player is a (site, account) pair, as in every
-- tracker: the same screen name on two sites is two rows. Accounts listed
-- in alias_accounts ('site:name') are merged under the person named at the
-- same index of alias_persons; site then lists the sites merged. Players at
-- anonymous tables (account null: position labels) give no row; their hands
-- still count in every total that is not per player.
-- inputs: fct_player_totals (the counts of every account's hands per part),
-- fct_player_counts (the same per day, position and stakes).
-- parameters:
--   filter_players       varchar[]: a screen name (any site), 'site:name'
--                        (one account) or a person of the aliases
--   alias_accounts, alias_persons
--                        varchar[] of the same length: account i belongs to
--                        person i
--   filter_site          site code (pokerstars, ...)
--   filter_game          a game code (O8, O8-5card, O8-6card, Courchevel-HL)
--   filter_limit         FL, PL or NL
--   filter_stakes_small, filter_stakes_big
--                        stakes in currency units as text ('0.01', '0.02'):
--                        the blinds, or the small and big bet in fixed limit
--   filter_since, filter_until
--                        dates (UTC), both included
--   group_dimension      position, stakes, month, site or game
--   minimum_hands        leave out groups with fewer hands
-- The statistics are declared in pipeline/statistics.py: the
-- `-- @statistics` line of final is replaced by their columns.
-- Ratios are fractions (0..1), null without an opportunity; money columns
-- ending in _minor are exact integers in the minor unit (cents, chips), the
-- others are decimals in currency units. Usage:
--   select * from rpt_player_stats(filter_players := ['Hero'],
--                                  group_dimension := 'position');
create or replace macro rpt_player_stats(
    filter_players := null,
    filter_site := null,
    filter_game := null,
    filter_limit := null,
    filter_stakes_small := null,
    filter_stakes_big := null,
    filter_since := null,
    filter_until := null,
    group_dimension := null,
    minimum_hands := null,
    alias_accounts := null,
    alias_persons := null
) as table

with

aliases as (

    select
        unnest(alias_accounts) as alias_account,
        unnest(alias_persons) as alias_person

),

-- Without a filter on the hands (or grouped by site) the totals stored per
-- part and account are enough (fct_player_totals); otherwise the counts per
-- day, position, game and stakes (fct_player_counts) are selected. The
-- conditions on the parameters are constants: DuckDB reads only one of the
-- two.
selected as (

    select
        *,
        case when group_dimension = 'site' then site end as group_value
    from fct_player_totals
    where
        filter_game is null
        and filter_limit is null
        and filter_stakes_small is null
        and filter_stakes_big is null
        and filter_since is null
        and filter_until is null
        and (group_dimension is null or group_dimension = 'site')
        and (filter_site is null or site = filter_site)

    union all by name

    select
        *,
        case group_dimension
            when 'position' then position
            when 'stakes' then limit_type || ' ' || stakes
            when 'month' then month
            when 'site' then site
            when 'game' then game
        end as group_value
    from fct_player_counts
    where
        not (
            filter_game is null
            and filter_limit is null
            and filter_stakes_small is null
            and filter_stakes_big is null
            and filter_since is null
            and filter_until is null
            and (group_dimension is null or group_dimension = 'site')
        )
        and (filter_site is null or site = filter_site)
        and (filter_game is null or game = filter_game)
        and (filter_limit is null or limit_type = filter_limit)
        and (
            filter_stakes_small is null
            or stakes_small_minor
            = cast(filter_stakes_small as decimal(18, 6)) * money_scale
        )
        and (
            filter_stakes_big is null
            or stakes_big_minor
            = cast(filter_stakes_big as decimal(18, 6)) * money_scale
        )
        and (filter_since is null or started_on >= cast(filter_since as date))
        and (filter_until is null or started_on <= cast(filter_until as date))

),

-- every count column summed per account (then per player): the columns that
-- are not dimensions; the big-blind sums are floats
accounts as (

    select
        site,
        account,
        currency,
        group_value,
        any_value(money_scale) as money_scale,
        cast(sum(columns(lambda c: c not in (
            'site', 'account', 'currency', 'money_scale', 'position', 'game',
            'limit_type', 'stakes', 'stakes_small_minor', 'stakes_big_minor',
            'started_on', 'month', 'group_value'
        ) and c not like 'net_won_big_%')) as bigint),
        sum(columns(lambda c: c like 'net_won_big_%'))
    from selected
    group by site, account, currency, group_value

),

identified as (

    select
        accounts.*,
        coalesce(aliases.alias_person, accounts.account) as identity_name,
        -- an unmerged account is one site's; a person spans the sites listed
        case
            when aliases.alias_person is null then accounts.site
        end as identity_site
    from accounts
    left join aliases
        on accounts.site || ':' || accounts.account = aliases.alias_account

),

players as (

    select * from identified
    where
        filter_players is null
        or list_contains(filter_players, identity_name)
        or list_contains(filter_players, site || ':' || account)

),

counted as (

    select
        identity_name as player,
        identity_site,
        currency,
        group_value,
        string_agg(distinct site, ',' order by site) as site,
        any_value(money_scale) as money_scale,
        cast(sum(columns(lambda c: c not in (
            'site', 'account', 'currency', 'group_value', 'money_scale',
            'identity_name', 'identity_site'
        ) and c not like 'net_won_big_%')) as bigint),
        sum(columns(lambda c: c like 'net_won_big_%'))
    from players
    group by identity_name, identity_site, currency, group_value
    having sum(hands) >= coalesce(minimum_hands, 0)

),

final as (

    select
        player,
        site,
        currency,
        group_value,
        hands,
        -- @statistics
        * exclude (
            player, identity_site, site, currency, group_value, hands,
            money_scale
        )
    from counted

)

select * from final
order by hands desc, player asc, site asc, currency asc, group_value asc
