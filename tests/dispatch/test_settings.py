"""Settings: names, defaults, validation and precedence (CLI > environment > headwater.toml > defaults)."""

from __future__ import annotations

from pathlib import Path

import pytest

from headwater.dispatch.settings import DispatchSettings, SettingsError, load_settings, parse_activation


def _toml(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "headwater.toml"
    p.write_text(text)
    return p


def test_defaults_are_the_guides(tmp_path: Path) -> None:
    s = load_settings(env={}, cwd=tmp_path)
    assert s.plugin_dir == Path("~/.headwater/plugins").expanduser()
    assert s.activate_lineage_plugin == ()
    assert s.lineage_event_queue_size == 50000
    assert (s.lineage_close_policy, s.lineage_close_timeout) == ("drain", 10.0)
    assert s.config_file is None and dict(s.origins) == {}


def test_precedence_cli_over_env_over_file(tmp_path: Path) -> None:
    _toml(
        tmp_path,
        'plugin_dir = "/from/file"\nactivate_lineage_plugin = "a"\nlineage_event_queue_size = 10\n'
        '[lineage_plugins.jsonl]\npath = "x.jsonl"\n',
    )
    env = {"HEADWATER_ACTIVATE_LINEAGE_PLUGIN": "b, c", "HEADWATER_LINEAGE_EVENT_QUEUE_SIZE": "20"}
    s = load_settings(env=env, overrides={"lineage_event_queue_size": 30, "plugin_dir": None}, cwd=tmp_path)
    assert s.plugin_dir == Path("/from/file")
    assert s.activate_lineage_plugin == ("b", "c")
    assert s.lineage_event_queue_size == 30
    assert dict(s.origins) == {
        "plugin_dir": str(tmp_path / "headwater.toml"),
        "activate_lineage_plugin": "HEADWATER_ACTIVATE_LINEAGE_PLUGIN",
        "lineage_event_queue_size": "CLI",
    }
    assert dict(s.settings_for("jsonl")) == {"path": "x.jsonl"}
    assert dict(s.settings_for("other")) == {}


def test_config_file_from_environment_and_explicit_path(tmp_path: Path) -> None:
    a = tmp_path / "a.toml"
    a.write_text("lineage_event_queue_size = 7\n")
    b = tmp_path / "b.toml"
    b.write_text("lineage_event_queue_size = 8\n")
    assert load_settings(env={"HEADWATER_CONFIG": str(a)}, cwd=tmp_path).lineage_event_queue_size == 7
    assert load_settings(b, env={"HEADWATER_CONFIG": str(a)}, cwd=tmp_path).lineage_event_queue_size == 8


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "1.5", "", 0, -3, 2.5, True])
def test_queue_size_must_be_a_positive_integer(tmp_path: Path, bad: object) -> None:
    with pytest.raises(SettingsError) as info:
        load_settings(env={}, overrides={"lineage_event_queue_size": bad}, cwd=tmp_path)
    assert str(info.value) == f"lineage_event_queue_size must be a positive integer, got {bad!r} (from CLI)"


def test_queue_size_error_names_the_file(tmp_path: Path) -> None:
    path = _toml(tmp_path, 'lineage_event_queue_size = "many"\n')
    with pytest.raises(SettingsError, match=rf"got 'many' \(from {path}\)"):
        load_settings(env={}, cwd=tmp_path)


def test_close_policy_and_timeout_are_checked(tmp_path: Path) -> None:
    s = load_settings(
        env={"HEADWATER_LINEAGE_CLOSE_POLICY": "abandon", "HEADWATER_LINEAGE_CLOSE_TIMEOUT": "2.5"},
        cwd=tmp_path,
    )
    assert (s.lineage_close_policy, s.lineage_close_timeout) == ("abandon", 2.5)
    with pytest.raises(SettingsError, match="lineage_close_policy must be one of drain, abandon"):
        load_settings(env={"HEADWATER_LINEAGE_CLOSE_POLICY": "later"}, cwd=tmp_path)
    with pytest.raises(SettingsError, match="lineage_close_timeout must be a number of seconds >= 0"):
        load_settings(env={"HEADWATER_LINEAGE_CLOSE_TIMEOUT": "-1"}, cwd=tmp_path)


def test_bad_toml_is_a_clear_error(tmp_path: Path) -> None:
    _toml(tmp_path, "plugin_dir = \n")
    with pytest.raises(SettingsError, match="is not valid TOML"):
        load_settings(env={}, cwd=tmp_path)
    _toml(tmp_path, "lineage_plugins = 3\n")
    with pytest.raises(SettingsError, match=r"\[lineage_plugins\] .* must hold one table per plugin name"):
        load_settings(env={}, cwd=tmp_path)


def test_activation_value_is_trimmed_case_kept_and_list_accepted(tmp_path: Path) -> None:
    assert parse_activation(" jsonl , Log,,jsonl ") == ("jsonl", "Log")
    assert parse_activation("") == ()
    assert parse_activation("  ") == ()
    _toml(tmp_path, 'activate_lineage_plugin = ["x", " y "]\n')
    assert load_settings(env={}, cwd=tmp_path).activate_lineage_plugin == ("x", "y")


def test_settings_are_immutable() -> None:
    s = DispatchSettings()
    with pytest.raises(AttributeError):
        s.lineage_event_queue_size = 1  # type: ignore[misc]
