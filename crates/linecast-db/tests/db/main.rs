//! Repository tests for linecast-db. Each suite function takes a database
//! URL and runs once against a fresh SQLite file and, when
//! `LINECAST_TEST_DATABASE_URL` is set, once against PostgreSQL in a fresh
//! schema.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounts;
mod billing;
mod connect;
mod ledger;
mod releases;
mod request_log;
mod schema;
mod support;
mod usage;
mod webhooks;

/// Declares one test per backend for every suite function `module::name`.
macro_rules! on_every_backend {
    ($($module:ident :: $name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let db = crate::support::TestDb::sqlite();
                    crate::$module::$name(db.url.clone()).await;
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let Some(db) = crate::support::PgSchema::create().await else { return };
                    crate::$module::$name(db.url.clone()).await;
                    db.drop_schema().await;
                }
            )+
        }
    };
}

on_every_backend!(
    accounts::a_second_customer_with_the_same_email_is_a_conflict,
    accounts::customers_are_found_by_email_listed_and_their_subscription_set,
    accounts::a_missing_customer_or_key_is_not_found,
    accounts::a_key_is_found_by_hash_listed_renamed_and_revoked,
    accounts::a_key_expiry_is_set_and_never_moves_later,
    accounts::a_duplicate_key_hash_is_a_conflict,
    accounts::many_keys_are_found_in_one_read_with_their_own_customers,
    accounts::last_used_is_touched_in_one_batch_and_never_moves_back,
    accounts::the_audit_log_keeps_every_line_in_order,
    accounts::entitlements_accumulate_products_and_sports,
    accounts::the_database_answers_a_ping,
    accounts::two_instances_starting_at_once_both_migrate_and_connect,
    accounts::concurrent_issues_never_pass_the_cap_and_every_key_has_its_audit_line,
    accounts::a_key_whose_audit_line_fails_is_rolled_back,
    billing::an_event_id_is_applied_once,
    billing::a_checkout_links_by_signed_reference_holds_an_email_match_and_creates_an_unknown_buyer,
    billing::a_checkout_never_takes_over_a_paying_customers_link,
    billing::an_ended_link_may_be_replaced_by_the_customers_new_subscription,
    billing::any_delivery_order_converges_to_the_newest_subscription_state,
    billing::an_older_update_after_a_newer_one_changes_nothing,
    billing::an_unmapped_price_never_grants_and_another_subscription_changes_nothing,
    billing::an_unmapped_price_still_suspends_and_ends_the_linked_subscription,
    billing::an_unmapped_end_waiting_for_its_checkout_applies_with_it,
    billing::an_end_is_final_within_its_second,
    billing::a_link_by_hand_applies_what_waited_for_it,
    billing::the_period_end_of_the_event_applied_is_kept_and_an_older_event_leaves_it,
    ledger::a_day_is_sealed_once_with_its_entries_and_retention_leaves_it_whole,
    ledger::instances_sealing_one_day_at_once_write_it_once,
    usage::concurrent_usage_increments_are_never_lost_or_doubled,
    usage::a_usage_batch_merges_increments_and_keeps_months_apart,
    usage::a_usage_batch_writes_monthly_and_daily_counts_together,
    usage::concurrent_usage_batches_keep_days_and_months_exact,
    usage::usage_batches_of_many_counters_keep_every_count,
    usage::usage_counts_survive_a_reconnect,
    usage::concurrent_refreshes_never_take_more_than_the_limit,
    usage::a_refresh_limit_of_zero_takes_nothing,
    request_log::concurrent_batches_share_the_days_cap_exactly,
    request_log::rows_read_back_as_recorded_and_are_pruned,
    request_log::each_customer_day_of_a_batch_keeps_its_own_first_requests,
    request_log::rows_of_the_release_before_fold_into_segments,
    request_log::segments_of_the_json_format_read_beside_packed_ones,
    releases::a_release_is_recorded_once_by_whichever_instance_comes_first,
    releases::releases_read_back_oldest_first_per_series_and_are_forgotten_before_a_cutoff,
    releases::a_releases_games_are_indexed_once_read_per_game_oldest_first_and_forgotten_with_it,
    releases::the_index_of_games_keeps_every_row_through_its_rebuild_in_key_order,
    schema::a_fresh_database_is_refused_by_check_and_migrated_once_by_migrate,
    schema::a_migration_of_a_newer_release_is_reported_and_tolerated,
    schema::a_database_with_another_migration_history_is_refused_and_left_alone,
    webhooks::a_message_fans_out_by_type_sport_and_customer,
    webhooks::a_dedupe_key_is_stored_once,
    webhooks::an_account_has_at_most_ten_endpoints,
    webhooks::concurrent_creations_never_pass_the_endpoint_limit,
    webhooks::claims_keep_each_endpoints_order_per_order_key,
    webhooks::concurrent_claimers_never_share_a_delivery,
    webhooks::an_expired_claim_is_claimed_again_with_the_same_message,
    webhooks::resend_and_recovery_keep_the_message_id,
    webhooks::attempts_read_newest_first_and_old_ones_are_pruned,
    webhooks::a_rotated_secret_is_kept_until_its_instant,
);
