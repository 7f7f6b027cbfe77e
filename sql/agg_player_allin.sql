-- agg_player_allin: all-in adjusted winnings of every player (the audit's
-- allin_equity: each player's expected share of every pot of an all-in hand).
-- grain: one row per player, a (site, account) pair as in rpt_player_stats, and
-- currency; anonymous seats (account null) give no row.
-- inputs: fct_hand_players (net won, big blind), allin_equity.
-- net_won_adjusted replaces, in every all-in hand, what the rules paid the
-- player from each pot by its expected amount over all run-outs:
--   net_won_adjusted = net_won - actual_amount + expected_amount.
-- allin_luck_z = allin_luck / sqrt(sum of spot_variance): the variance over
-- the run-outs of the player's total payout from each spot (docs/fairness.md);
-- close to standard normal for a fair deal after a few dozen spots.
-- Expectations are float64 (money columns of the facts stay integers); the
-- money here is in the row's currency (minor units / money_scale).
with

spots as (

    select
        site,
        hand_id,
        player,
        min(street) as street,
        sum(expected_amount) as expected_minor,
        sum(actual_amount) as actual_minor,
        sum(pot_amount) as contested_minor,
        any_value(spot_variance) as variance_minor
    from allin_equity
    group by site, hand_id, player

),

hand_players as (

    select
        facts.account as player,
        facts.site,
        facts.currency,
        facts.money_scale,
        facts.big_blind,
        facts.net_won,
        spots.hand_id is not null as is_allin,
        coalesce(spots.expected_minor, 0) as expected_minor,
        coalesce(spots.actual_minor, 0) as actual_minor,
        spots.variance_minor,
        spots.expected_minor / nullif(spots.contested_minor, 0) as allin_equity
    from fct_hand_players as facts
    left join spots
        on facts.site = spots.site
        and facts.hand_id = spots.hand_id
        and facts.player = spots.player
    where facts.account is not null

),

counted as (

    select
        player,
        site,
        currency,
        max(money_scale) as money_scale,
        count(*)::bigint as hands,
        count_if(is_allin)::bigint as allin_spots,
        cast(sum(net_won) as bigint) as net_won_minor,
        sum(net_won - actual_minor + expected_minor) as net_won_adjusted_minor,
        sum(actual_minor - expected_minor) as allin_luck_minor,
        sum(variance_minor) as allin_variance_minor,
        cast(sum(actual_minor) as bigint) as allin_actual_minor,
        sum(expected_minor) as allin_expected_minor,
        avg(allin_equity) as allin_average_equity,
        sum(net_won / big_blind) as net_won_big_blinds,
        sum((net_won - actual_minor + expected_minor) / big_blind)
            as net_won_adjusted_big_blinds
    from hand_players
    group by player, site, currency

),

final as (

    select
        player,
        site,
        currency,
        hands,
        allin_spots,
        allin_average_equity,
        net_won_minor / money_scale as net_won,
        net_won_adjusted_minor / money_scale as net_won_adjusted,
        allin_luck_minor / money_scale as allin_luck,
        allin_luck_minor / nullif(sqrt(allin_variance_minor), 0)
            as allin_luck_z,
        100 * net_won_big_blinds / hands as bb_per_100,
        100 * net_won_adjusted_big_blinds / hands as ev_bb_per_100,
        net_won_minor,
        net_won_adjusted_minor,
        allin_luck_minor,
        allin_actual_minor,
        allin_expected_minor
    from counted

)

select * from final
order by hands desc, player asc, site asc, currency asc
