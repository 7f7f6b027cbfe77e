-- fct_player_counts: every numerator and denominator of the player
-- statistics (rpt_player_stats), summed per account and per value of every
-- dimension the statistics filter or group by: each account's day at one
-- stakes in one position. Computed and stored per ingest part, like
-- fct_hand_players; statistics add up these rows instead of every hand.
-- grain: one row per (site, account, currency, position, limit_type,
-- stakes, started_on) of an ingest part; players at anonymous tables
-- (account null) give no row.
-- inputs: fct_hand_players.
-- Every count is an exact integer, so the counts of any selection of these
-- rows are the sums of its counts; only the two big-blind sums are floats.
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
        limit_type,
        stakes,
        stakes_small_minor,
        stakes_big_minor,
        started_on,
        month,
        count(*)::bigint as hands,
        count_if(is_walk)::bigint as walks,
        count_if(is_vpip)::bigint as vpip_hands,
        count_if(is_pfr)::bigint as pfr_hands,
        count_if(pfr_chance)::bigint as pfr_chances,
        count_if(made_three_bet)::bigint as three_bets,
        count_if(faced_two_bet)::bigint as three_bet_chances,
        count_if(folded_to_three_bet)::bigint as three_bet_folds,
        count_if(faced_three_bet)::bigint as fold_to_three_bet_chances,
        count_if(is_opener and folded_to_three_bet)::bigint
            as opener_three_bet_folds,
        count_if(is_opener and faced_three_bet)::bigint
            as opener_fold_to_three_bet_chances,
        count_if(made_four_bet)::bigint as four_bets,
        count_if(faced_three_bet_or_more)::bigint as four_bet_chances,
        count_if(made_steal)::bigint as steals,
        count_if(steal_chance)::bigint as steal_chances,
        count_if(folded_to_steal)::bigint as steal_folds,
        count_if(fold_to_steal_chance)::bigint as fold_to_steal_chances,
        count_if(made_limp)::bigint as limps,
        count_if(limp_chance)::bigint as limp_chances,
        count_if(made_cold_call)::bigint as cold_calls,
        count_if(faced_two_bet_cold)::bigint as cold_call_chances,
        sum(postflop_bets)::bigint as postflop_bets,
        sum(postflop_raises)::bigint as postflop_raises,
        sum(postflop_calls)::bigint as postflop_calls,
        sum(postflop_folds)::bigint as postflop_folds,
        count_if(made_flop_cbet)::bigint as flop_cbets,
        count_if(flop_cbet_chance)::bigint as flop_cbet_chances,
        count_if(made_turn_cbet)::bigint as turn_cbets,
        count_if(turn_cbet_chance)::bigint as turn_cbet_chances,
        count_if(folded_to_flop_cbet)::bigint as flop_cbet_folds,
        count_if(fold_to_flop_cbet_chance)::bigint
            as fold_to_flop_cbet_chances,
        count_if(folded_to_turn_cbet)::bigint as turn_cbet_folds,
        count_if(fold_to_turn_cbet_chance)::bigint
            as fold_to_turn_cbet_chances,
        count_if(made_flop_check_raise)::bigint as flop_check_raises,
        count_if(flop_check_raise_chance)::bigint as flop_check_raise_chances,
        sum(check_raises)::bigint as check_raises,
        sum(check_raise_chances)::bigint as check_raise_chances,
        count_if(saw_flop)::bigint as flops_seen,
        count_if(went_to_showdown)::bigint as showdowns,
        count_if(won_at_showdown)::bigint as showdowns_won,
        count_if(saw_flop and collected > 0)::bigint as flops_won,
        count_if(won_without_showdown)::bigint as won_without_showdown_hands,
        cast(sum(net_won) as bigint) as net_won_minor,
        sum(rake_paid_micros)::bigint as rake_paid_micros,
        count_if(is_hilo_showdown)::bigint as hilo_showdowns,
        count_if(is_scoop)::bigint as scoops,
        count_if(is_high_only)::bigint as high_only_wins,
        count_if(is_low_only)::bigint as low_only_wins,
        count_if(is_quartered)::bigint as quartered,
        count_if(is_three_quartered)::bigint as three_quartered,
        count_if(is_chopped)::bigint as chopped,
        count_if(won_high)::bigint as high_wins,
        count_if(won_low)::bigint as low_wins,
        cast(sum(main_pot_collected) filter (where is_hilo_showdown) as bigint)
            as showdown_main_pots_collected,
        cast(sum(main_pot_amount) filter (where is_hilo_showdown) as bigint)
            as showdown_main_pots,
        count_if(not is_balanced)::bigint as unbalanced_hands,
        sum(net_won / big_blind) as net_won_big_blinds,
        sum(net_won / big_bet) as net_won_big_bets
    from hand_players
    group by all

)

select * from final
