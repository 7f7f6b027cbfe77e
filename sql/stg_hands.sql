-- stg_hands: the parsed hands, with the labels statistics are filtered and
-- grouped by (stakes, UTC date and month) and the rake as a number.
-- grain: one row per hand (site, hand_id).
-- inputs: hands (Parquet view over the parts the files manifest names).
-- stakes: the blinds in pot and no limit, the small and big bet in fixed
-- limit ("2.00/4.00" for a $1/$2-blind limit game), in currency units with
-- two decimals for cents and none for chips; rake is 0 where none is printed.
-- is_anonymous: the site prints position labels (Dealer, UTG+1, ...) instead
-- of screen names, new in every hand (Bovada and Ignition, site bovada): its
-- players have no identity beyond the hand, except the hero.
with

hands as (

    select * from hands

),

staked as (

    select
        *,
        case
            when limit_type = 'FL' and small_bet is not null then small_bet
            else small_blind
        end as stakes_small_minor,
        case
            when limit_type = 'FL' and big_bet is not null then big_bet
            else big_blind
        end as stakes_big_minor,
        cast(timezone('UTC', started_at) as date) as started_on
    from hands

),

final as (

    select
        site,
        hand_id,
        tournament_id,
        tournament_id is not null as is_tournament,
        table_name,
        game,
        limit_type,
        currency,
        money_scale,
        small_blind,
        big_blind,
        small_bet,
        big_bet,
        coalesce(ante, 0) as ante,
        max_seats,
        button_seat,
        players_dealt,
        started_at,
        started_on,
        strftime(started_on, '%Y-%m') as month,
        stakes_small_minor,
        stakes_big_minor,
        case
            when money_scale = 100
                then
                    format(
                        '{}.{:02d}/{}.{:02d}',
                        stakes_small_minor // 100,
                        stakes_small_minor % 100,
                        stakes_big_minor // 100,
                        stakes_big_minor % 100
                    )
            else format('{}/{}', stakes_small_minor, stakes_big_minor)
        end as stakes,
        coalesce(len(board), 0) >= 3 as has_flop,
        site in ('bovada') as is_anonymous,
        coalesce(rake, 0) as rake,
        total_pot
    from staked

)

select * from final
