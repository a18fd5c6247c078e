"""Which tests are ``spawn`` and which are ``slow`` (the markers of pyproject.toml), by module:
the names of their test functions (every parametrized case), a case pattern
(``"test_hostile_case[growth/*]"``), or :data:`EVERY_TEST` of the module.

tests/conftest.py marks them as they are collected, so that ``python -m pytest -m "not slow
and not spawn"`` (the fast set) leaves them out. ``spawn``: the test starts a process (the
command line as a user runs it, a fresh interpreter, kubectl, pip, a browser); a test that
starts one and is not listed here fails, naming the command. ``slow``: heavy work in the
test's own process (a growth budget, a large input, a long property run).
tests/test_markers.py checks that every name here is a test of its module.
"""

from __future__ import annotations

__all__ = ("EVERY_TEST", "SLOW", "SPAWN")

EVERY_TEST = ("*",)
"""Every test of the module, those added later too."""

SPAWN: dict[str, tuple[str, ...]] = {
    "budget.py": ("tests.budget",),
    "warm.py": ("tests.warm",),
    "test_api_rules.py": (
        "test_an_overlay_that_removes_the_last_container_is_refused_at_its_line",
        "test_apply_names_the_overlay_line_that_brought_the_clash",
        "test_apply_prints_a_warning_and_succeeds",
        "test_apply_reports_only_what_the_overlays_brought",
        "test_validate_refuses_two_mounts_at_one_path_and_two_ports_of_one_name",
        "test_what_kubectl_s_own_merge_brings_is_found",
    ),
    "test_blame.py": (
        "test_deny_names_each_file_for_the_elements_it_wrote",
        "test_deny_names_the_one_file_that_wrote_a_path",
        "test_explain_blame_names_each_file_per_element",
    ),
    "test_cli.py": EVERY_TEST,
    "test_cli_apply_checks.py": EVERY_TEST,
    "test_cli_policies.py": (
        "test_a_manifest_that_is_not_utf8_is_a_bad_input_as_an_overlay_is",
        "test_a_path_no_pod_has_is_refused_as_a_flag_value",
        "test_a_policy_violation_names_the_overlay_line_that_wrote_it",
        "test_a_stream_with_no_document_is_an_error_where_output_would_replace_it",
        "test_allow_repeated_and_separated",
        "test_an_overlay_that_deletes_the_pod_is_refused",
        "test_apply_policy_baseline_on_a_real_daemonset_names_its_host_path_volumes",
        "test_apply_policy_met_by_an_overlay_prints_what_apply_prints",
        "test_apply_policy_restricted_lists_every_violation_of_every_template",
        "test_bad_flags_are_usage_errors",
        "test_conflicts_error_names_both_files_and_lines",
        "test_conflicts_warn_prints_the_documents_and_warns",
        "test_deny_names_what_was_changed_under_a_denied_path",
        "test_explain_prints_the_diff_then_fails_on_a_violation",
        "test_the_same_values_written_twice_are_no_conflict",
        "test_validate_policy",
    ),
    "test_cli_render.py": EVERY_TEST,
    "test_client_objects.py": ("test_plain_documents_never_load_adapters",),
    "test_depth.py": ("test_deep_and_cyclic_input_is_refused_naming_where",),
    "test_docs_site.py": (
        "test_every_navigation_link_leads_to_a_page",
        "test_every_page_renders",
        "test_search_finds_a_recipe_and_links_to_its_entry",
    ),
    "test_helm.py": (  # real Helm 3 and Helm 4 binaries (and npm, to fetch them once)
        "test_helm_3_post_renders_a_created_chart_and_ray_cluster",
        "test_helm_4_plugin_post_renders_and_its_errors_are_kept",
    ),
    "test_input_faults.py": (
        "test_a_bad_setting_is_refused_naming_it",
        "test_a_device_is_refused_as_a_manifest",
        "test_a_device_is_refused_as_an_overlay",
        "test_a_device_on_standard_input_is_refused",
        "test_a_directory_keeps_the_systems_refusal",
        "test_a_fifo_is_read",
        "test_a_file_past_the_bound_is_refused_before_it_is_read",
        "test_a_manifest_that_is_not_utf8_fails_as_an_overlay_does",
        "test_a_read_that_fails_names_the_source_and_the_systems_words",
        "test_a_server_that_answers_is_read",
        "test_a_server_that_does_not_answer_or_stalls_is_given_up_on",
        "test_a_utf16_manifest_says_how_to_write_it",
        "test_a_zip_bomb_is_refused_before_it_is_inflated",
        "test_an_endless_body_is_refused_at_the_bound",
        "test_an_endless_pipe_is_refused_at_the_bound",
        "test_an_overlay_in_a_zip_is_read",
        "test_dev_null_reads_as_empty",
    ),
    "test_json_patch.py": ("test_kubectl_gives_the_expected_result",),
    "test_kind_facts.py": (
        "test_podfold_apply_on_lws_s_claim_template_sample",
        "test_podfold_apply_queues_a_pod",
        "test_podfold_apply_refuses_it_in_one_line",
        "test_podfold_validate_takes_lws_s_claim_template_sample",
    ),
    "test_krm_function.py": (  # the real kpt
        "test_kpt_fn_eval_runs_the_function_on_a_package",
        "test_kpt_fn_render_runs_a_kptfile_pipeline_and_fails_on_an_error",
    ),
    "test_kubectl_plugin.py": EVERY_TEST,  # the real kubectl, finding the plugin on PATH
    "test_kubectl_workloads.py": (
        "test_spec_fields_outside_the_template_merge_like_kubectl",
        "test_workload_patch_agrees_with_kubectl",
    ),
    "test_layering.py": (
        "test_the_code_keeps_every_contract",
        "test_the_contracts_catch_a_wrong_import",
    ),
    "test_merge_patch.py": ("test_kubectl_gives_the_expected_result",),
    "test_output_faults.py": EVERY_TEST,
    "test_packaging.py": EVERY_TEST,
    "test_partial_merge.py": (
        "test_the_fields_kubectl_keeps_are_kept",
        "test_the_same_through_the_command_line",
    ),
    "test_partial_vs_kubectl.py": ("test_a_partial_pod_keeps_every_field_kubectl_keeps",),
    "test_patch_chains.py": (
        "test_a_deployment_patch_then_a_pod_overlay_in_python",
        "test_a_patch_reaches_its_deployment_inside_a_list",
        "test_podfold_apply_with_a_deployment_patch_and_a_gpu_overlay",
    ),
    "test_pre_commit.py": EVERY_TEST,  # the real pre-commit, and git, in a throwaway repository
    "test_problems_the_manifest_had.py": EVERY_TEST,
    "test_read_once.py": EVERY_TEST,
    "test_recipes_fit.py": (
        "test_podfold_recipes_name_shows_the_yaml_step",
        "test_yaml_overlay_of_the_gke_example_refuses_the_deployment_and_exits_1",
    ),
    "test_render.py": EVERY_TEST,
    "test_run_option_faults.py": (
        "test_overlays_from_pipes_are_read_once_and_their_lines_named",
        "test_render_applies_both_and_refuses_a_flag_the_cfg_contradicts",
        "test_render_warns_of_an_empty_overlay_as_apply_does",
        "test_torchx_run_applies_both_overlays_given_as_two_keys",
        "test_torchx_run_refuses_a_scalar_option_given_twice",
    ),
    "test_schema.py": ("test_nothing_is_loaded_at_import_time",),
    "test_shadowing.py": EVERY_TEST,
    "test_startup.py": (
        "test_client_objects_find_their_adapter_on_first_use",
        "test_every_lazy_package_defers_through_the_one_mechanism",
        "test_explain_does_not_load_the_entry_points",
        "test_import_combinators_loads_none_of_the_heavy_modules",
        "test_import_combinators_loads_only_a_few_small_stdlib_modules",
        "test_import_transforms_loads_nothing_but_itself",
        "test_near_misses_are_named_once_difflib_is_imported_on_demand",
        "test_persistent_documents_work_when_pyrsistent_is_imported_after_combinators",
        "test_plain_documents_are_edited_and_compared_without_pyrsistent",
        "test_podfold_apply_of_one_recipe_loads_only_what_it_uses",
        "test_podfold_validate_reads_the_schema_without_importlib_resources",
        "test_the_function_blame_hides_the_module_of_that_name",
        "test_the_lazy_packages_give_every_name_they_list",
        "test_type_aliases_read_at_run_time_are_the_typing_forms",
        "test_what_combinators_defers_works_when_first_used",
    ),
    "test_strategic.py": (
        "test_kubectl_gives_the_expected_result",
        "test_law_agrees_with_kubectl_on_generated_patches",
    ),
    "test_testing_kit.py": (
        "test_example_module_passes",
        "test_plugin_imports_nothing_of_podfold_until_a_fixture_is_used",
        "test_plugin_loads_on_install_in_another_project",
    ),
    "test_third_party_catalogs.py": EVERY_TEST,
    "test_kinds_open.py": ("test_an_installed_package_ships_its_kinds",),
    "test_torchx_builtins.py": (
        "test_local_cwd_still_runs",
        "test_runopts_lists_every_scheduler_as_torchx_does_or_why_it_cannot",
        "test_runopts_of_kubernetes_prints_torchxs_own_options",
        "test_the_entry_points_module_loads_nothing_until_a_factory_is_called",
    ),
    "test_torchx_e2e.py": (
        "test_cli_dry_run_of_the_example",
        "test_cli_failing_overlay_exits_non_zero_with_a_short_reason",
        "test_cli_lists_the_builtins_and_local_cwd_still_runs",
        "test_cli_runopts_lists_our_options",
    ),
    "test_torchx_nightly.py": (
        "test_local_cwd_really_runs_on_nightly",
        "test_podfold_render_prints_the_folded_job_offline",
        "test_running_a_scheduler_this_torchx_lacks_fails_in_one_short_line",
        "test_runopts_says_in_one_line_which_schedulers_this_torchx_lacks",
        "test_runopts_says_when_validate_spec_asks",
        "test_the_readmes_main_command_prints_the_folded_job_offline",
        "test_the_readmes_main_command_submits_through_a_kubeconfig",
        "test_the_readmes_main_command_submitting_without_a_cluster_fails_in_one_short_line",
        "test_torchx_run_without_a_scheduler_runs_or_names_the_default_in_one_line",
        "test_validate_spec_true_under_dryrun_without_a_cluster_fails_in_one_short_line",
    ),
    "test_torchx_safety.py": (
        "test_a_bad_option_value_is_refused_before_anything_renders",
        "test_a_conflict_on_a_mount_names_the_lines_of_both_files",
        "test_an_overlay_failure_is_a_short_message_naming_role_replica_and_path",
        "test_an_overlay_that_meets_the_policy_passes",
        "test_an_unknown_cfg_key_is_refused_with_a_near_miss",
        "test_conflicts_error_names_both_files_and_lines",
        "test_conflicts_warn_warns_once_per_role_and_the_last_wins",
        "test_deny_lists_every_changed_path_per_role_and_replica",
        "test_every_malformed_option_value_prints_short",
        "test_k8s_version_1_29_renders_and_an_unknown_one_fails_once",
        "test_policy_baseline_passes_torchx_s_pods_and_fails_host_network",
        "test_policy_restricted_lists_every_violation_per_role_and_replica",
        "test_role_overlays_written_role_equals_file_is_refused_with_a_guess",
        "test_the_message_names_the_run_option_it_came_from",
    ),
    "test_torchx_submit.py": (
        "test_cli_submit_through_a_kubeconfig_creates_the_folded_job",
        "test_cli_submit_without_a_cluster_fails_in_one_short_line",
    ),
    "test_unreached_pods.py": (
        "test_apply_reaching_templates_says_nothing",
        "test_apply_to_documents_with_no_pod_says_the_overlays_reached_none",
        "test_apply_warns_of_each_document_whose_pods_it_does_not_reach",
        "test_validate_warns_of_pods_it_does_not_check",
    ),
    "test_workload_explain.py": EVERY_TEST,
    "test_workload_scopes.py": (
        "test_podfold_apply_puts_the_queue_where_kueue_reads_it",
        "test_podfold_explain_blame_says_the_queue_is_set_on_the_workload_object",
        "test_the_label_is_where_kubectl_label_puts_it_on_the_workload",
    ),
    "test_yaml_paths.py": (
        "test_a_local_overlay_is_read_without_fsspec",
        "test_podfold_apply_prints_the_same_on_both_paths",
    ),
    "test_yaml_quoting.py": (
        "test_kubectl_reads_podfold_apply_s_strings_as_strings",
        "test_render_quotes_what_kubectl_would_misread",
    ),
    "test_yaml_scalars.py": (
        "test_a_key_kubectl_cannot_read_is_refused_where_it_is_written",
        "test_an_explicit_number_tag_kubectl_refuses_is_refused_in_place",
        "test_an_explicit_number_tag_reads_its_text_as_kubectl_does",
        "test_an_infinity_or_nan_as_a_value_is_refused_where_it_is_written",
        "test_apply_s_output_means_to_kubectl_what_its_input_meant",
        "test_every_short_number_like_text_is_read_as_kubectl_reads_it",
        "test_every_short_text_written_as_a_string_is_a_string_to_kubectl",
        "test_law_apply_s_output_means_to_kubectl_what_its_input_meant",
        "test_the_cases_are_what_kubectl_reads",
        "test_the_keys_are_what_kubectl_makes_of_them",
    ),
    "test_yaml_trust.py": (
        "test_a_key_kubectl_reads_as_a_boolean_is_the_text_kubectl_makes_of_it",
        "test_a_manifest_is_read_as_kubectl_reads_it",
        "test_apply_writes_what_kubectl_read",
    ),
}

SLOW: dict[str, tuple[str, ...]] = {
    "test_blame.py": ("test_blame_on_8000_volumes_stays_within_budget",),
    "test_combinators.py": (
        "test_no_transform_mutates_its_input_or_its_values",
        "test_persistent_in_persistent_out",
        "test_transforms_are_values",
    ),
    "test_dumping.py": (
        "test_law_load_dump_load_partial_pods",
        "test_law_load_dump_load_pipelines",
    ),
    "test_engine_state_machine.py": ("TestEngine",),
    "test_explain.py": ("test_the_diff_of_20000_containers_stays_within_budget",),
    "test_fusion.py": (
        "test_a_fused_composition_equals_its_steps_one_by_one",
        "test_a_fused_composition_that_goes_leaves_nothing_for_the_collector",
        "test_a_long_composition_is_cut_into_several_fused_functions",
        "test_the_same_object_twice_in_a_document_is_copied_for_each_place",
    ),
    "test_fusion_differential.py": (
        "test_fused_and_walked_compositions_agree_on_paths_of_every_shape",
    ),
    "test_fuzz.py": EVERY_TEST,
    "test_growth.py": (
        "test_list_operations_on_20000_items_stay_within_budget",
        "test_the_budget_catches_a_memory_blowup",
        "test_the_budget_catches_quadratic_work",
        "test_apply_naming_the_line_of_a_validation_problem_grows_with_the_pod",
        "test_apply_naming_the_line_of_each_denied_change_grows_with_the_pod",
        "test_apply_naming_the_line_of_each_validation_problem_grows_with_the_pod",
        "test_explain_blame_command_grows_with_the_pod",
        "test_the_lines_of_conflicts_are_found_in_time_that_grows_with_the_pod",
    ),
    "test_hostile.py": ("test_hostile_case",),
    "test_input_faults.py": ("test_the_timeout_bounds_a_library_read_too",),
    "test_json_patch.py": (
        "test_law_agrees_with_the_jsonpatch_library",
        "test_law_inputs_are_unmodified",
    ),
    "test_kind_records.py": ("test_each_builtin_record_finds_the_templates_of_a_real_manifest",),
    "test_kit_can_fail.py": ("test_pods_find_the_pod_a_function_assuming_too_much_breaks_on",),
    "test_kit_on_podfold.py": (
        "test_chains_of_recipes_and_combinators_are_pure_idempotent_and_keep_pods_valid",
        "test_combinators_are_pure_idempotent_and_write_only_under_their_path",
    ),
    "test_laws.py": (
        "test_law_chain_agrees_with_oracle",
        "test_law_compose_applies_right_to_left",
        "test_law_compose_associative",
        "test_law_compose_nested_flattens",
        "test_law_replace_at_put_get",
        "test_law_structural_sharing",
    ),
    "test_near_misses.py": (
        "test_only_the_room_chooses_near_misses",
        "test_only_the_room_writes_did_you_mean",
    ),
    "test_patch_chains.py": ("test_law_a_chain_applies_as_its_steps_one_after_another",),
    "test_patch_plans.py": (
        "test_law_json_patch_plan_equals_the_general_walk",
        "test_law_strategic_plan_equals_the_general_merge",
    ),
    "test_recipes.py": ("test_output_on_torchx_pod_is_valid",),
    "test_short_errors.py": (
        "test_command_line_errors_are_short",
        "test_library_errors_are_short",
        "test_recipe_errors_are_short",
        "test_validate_lists_every_problem_of_a_long_pod_each_in_one_short_line",
    ),
    "test_strategic.py": ("test_law_chained_patches_equal_patches_applied_one_by_one",),
    "test_testing_kit.py": (
        "test_generated_pods_are_valid",
        "test_generated_pods_have_varied_shapes",
        "test_transforms_apply_to_every_drawn_pod",
    ),
    "test_torchx_fold.py": (
        "test_macros_are_substituted_as_the_oracle_says",
        "test_the_fold_leaves_no_garbage_for_the_collector",
    ),
    "test_workload_scopes.py": (
        "test_law_on_a_pod_the_overlay_is_applied_as_written",
        "test_law_workload_steps_write_the_workload_pod_steps_each_template",
    ),
    "test_yaml_paths.py": (
        "test_hostile_yaml_on_the_pure_path",
        "test_libyaml_and_pure_python_write_the_same_text",
    ),
    "test_yaml_quoting.py": (
        "test_law_every_plain_string_is_a_string_to_every_reader",
        "test_law_random_maps_of_strings_round_trip",
    ),
    "test_yaml_safety.py": (
        "test_a_manifest_may_write_out_many_nodes_but_aliases_add_few",
        "test_deep_yaml_is_refused_at_the_documented_depth",
    ),
    "test_kinds_open.py": ("test_an_installed_package_ships_its_kinds",),
}
