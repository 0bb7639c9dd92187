"""`penguin-panel play`: bad options and settings give one line naming what and where."""

from panel.cli import main


def error_lines(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("error: ") for line in err) and "Traceback" not in "\n".join(err)
    return err


def test_bad_settings_file_names_file_and_key(tmp_path, capsys):
    f = tmp_path / "settings.toml"
    f.write_text('[service]\nport = "eighty"\npin = "12"\ncolour = 1\n[match]\nturn_seconds = 2\n[extra]\n')
    assert main(["play", "--sim", "--settings", str(f)]) == 2
    err = "\n".join(error_lines(capsys))
    for key in ("service.port", "service.pin", "service.colour", "match.turn_seconds", "extra"):
        assert f"{f}: {key}" in err, key


def test_missing_settings_file(tmp_path, capsys):
    assert main(["play", "--sim", "--settings", str(tmp_path / "none.toml")]) == 2
    assert "file not found" in error_lines(capsys)[0]


def test_a_built_cockpit_needs_its_hardware_map(capsys):
    assert main(["play"]) == 2
    assert "--hardware" in error_lines(capsys)[0]


def test_a_database_that_cannot_be_opened(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["play", "--sim", "--db", str(blocker / "panel.db"), "--port", "0"]) == 2
    assert "cannot open the database" in error_lines(capsys)[0]


def test_bad_hardware_map(tmp_path, capsys):
    m = tmp_path / "map.toml"
    m.write_text("this is = = not toml")
    assert main(["play", "--hardware", str(m), "--db", str(tmp_path / "p.db"), "--port", "0"]) == 2
    assert str(m) in error_lines(capsys)[0]
