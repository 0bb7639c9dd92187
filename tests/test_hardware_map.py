"""The hardware map: both shipped maps validate; each kind of mistake gets one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from panel.tools.cli import main
from panel.core.errors import ConfigError
from panel.hardware.map import (MAPS_DIR, AdcSource, EncoderSource, GpioSource, MatrixSource, PinPairSource,
                                check_map, load_map, shipped_maps)
from panel.core.layout_file import load_layout

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "panel" / "maps" / "reference.toml"
SMALL = ROOT / "panel" / "maps" / "small.toml"

SMALL_TEXT = """
name = "t"
buses = ["spi0"]
[neopixel]
gpio = 10
driver = "spi"
count = 10
timer = { first = 0, count = 8 }
[buzzer]
gpio = 12
[controls.cockpit]
flip = { gpio = 5 }
start = { gpio = 6 }
[controls.cross]
up = { gpio = 17 }
"""


def write(tmp_path, text: str) -> Path:
    p = tmp_path / "map.toml"
    p.write_text(text)
    return p


def errors_of(tmp_path, text: str, **kw) -> list[str]:
    errors, _ = check_map(write(tmp_path, text), **kw)
    return [str(e) for e in errors]


def test_reference_map_is_complete_and_strict_clean():
    errors, warnings = check_map(REFERENCE, strict=True)
    assert errors == [] and warnings == []
    hm = load_map(REFERENCE)
    layout = load_layout(expansion=True)
    assert set(hm.controls) == {c.id for c in layout.controls()}


def test_small_map_validates_with_warnings_for_unwired_controls():
    errors, warnings = check_map(SMALL)
    assert errors == []
    assert any("grid.r1c1" in str(w) and "unmapped" in str(w) for w in warnings)
    strict_errors, _ = check_map(SMALL, strict=True)
    assert len(strict_errors) == len(warnings)


def test_sources_parsed_with_defaults():
    hm = load_map(REFERENCE)
    assert hm.controls["cockpit.flip"] == GpioSource(13, "up", "low", None)
    assert hm.controls["round_lever.red"] == PinPairSource((5, 6))
    assert hm.controls["knob.main"] == EncoderSource((19, 18), "pi", 4, True)
    assert hm.controls["slider.blue"] == AdcSource(0, "pico", (0.02, 0.98), 0.05, 150)
    assert hm.controls["grid.r1c1"] == MatrixSource(0, 0)
    assert hm.neopixel.pixels("timer") == range(0, 24)
    assert hm.neopixel.buttons["cross.ok"] == 42
    assert hm.buzzer.pin == 12
    small = load_map(SMALL)
    assert small.controls["slider.red"].on == "mcp3008" and small.mcp3008.select_pin == 8
    assert small.buses == ("spi0", "spi1")


def test_views_for_the_serial_link_and_firmware():
    hm = load_map(REFERENCE)
    cells = hm.matrix_cells()
    assert cells[(0, 0)] == "grid.r1c1" and len(cells) == 77
    assert hm.coprocessor_adc() == {0: "slider.blue", 1: "slider.red"}
    assert set(hm.on_board()) == set(cells.values()) | {"slider.blue", "slider.red"}
    assert set(hm.on_pi()) | set(hm.on_board()) == set(hm.controls)
    assert (12, "the buzzer", "buzzer.gpio") in hm.pi_claims()
    assert (5, "round_lever.red", "controls.round_lever.red.pins") in hm.pi_claims()


def test_what_each_source_means():
    layout = load_layout(expansion=True)
    switch, flip = layout.control("switch.left"), layout.control("cockpit.flip")
    assert GpioSource(4, closed="up").positions_of(switch) == ("down", "up")
    assert GpioSource(4).positions_of(switch) == (switch.positions[0], switch.positions[1])
    assert MatrixSource(0, 0, closed="down").positions_of(switch) == ("up", "down")
    assert GpioSource(5).positions_of(flip) is None and MatrixSource(0, 0).positions_of(flip) is None
    assert GpioSource(5, pull="none", active="high").pull_up is None
    assert PinPairSource((5, 6), pull="down").pull_up is False
    knob = EncoderSource((19, 18), steps_per_position=4, wrap=True)
    assert [knob.position_of(n, "123456") for n in (0, 1, 2, 6, -2, -3, 24)] == ["1", "1", "2", "3", "1", "6", "1"]
    assert EncoderSource((19, 18), wrap=False).position_of(-8, "123456") == "1"
    assert knob.steps_at("3", "123456") == 8
    pico, mcp = AdcSource(0, "pico", settle_ms=40), AdcSource(0, "mcp3008")
    assert pico.fraction(4095) == 1.0 and pico.fraction(0) == 0.0 and mcp.fraction(0.5) == 0.5
    q = pico.quantiser(("1", "2"))
    assert q.settle == 0.04 and q.update(0.9, 0.0) is None and q.deadline == 0.04 and q.update(0.9, 0.04) == "2"


def test_good_small_text_is_clean(tmp_path):
    assert errors_of(tmp_path, SMALL_TEXT) == []


@pytest.mark.parametrize("extra, key, words", [
    ("[controls.grid]\nr9c9 = { gpio = 20 }", "controls.grid.r9c9", "unknown control id 'grid.r9c9'"),
    ("[controls.switch]\nleft = { gpio = 17 }", "controls.switch.left.gpio", "GPIO17 is used twice"),
    ("[controls.switch]\nleft = { gpio = 9 }", "controls.switch.left.gpio", "GPIO9 is SPI0 MISO, reserved"),
    ("[controls.switch]\nleft = { gpio = 40 }", "controls.switch.left.gpio", "not on the 40-pin header"),
    ("[controls.switch]\nleft = { gpio = 1 }", "controls.switch.left.gpio", "HAT ID EEPROM"),
    ("[controls.switch]\nleft = { gpio = 4, closed = \"sideways\" }", "controls.switch.left.closed",
     "'sideways' is not a position"),
    ("[controls.slider]\nblue = { gpio = 4 }", "controls.slider.blue", "needs an ADC channel"),
    ("[controls.knob]\nmain = { gpio = 4 }", "controls.knob.main", "needs 'encoder'"),
    ("[controls.round_lever]\nred = { gpio = 4 }", "controls.round_lever.red", "needs a pin pair"),
    ("[controls.alarm]\nred = { pins = [20, 21] }", "controls.alarm.red", "is a button"),
    ("[controls.alarm]\nred = { gpio = 20, matrix = [0, 0] }", "controls.alarm.red", "more than one source"),
    ("[controls.alarm]\nred = { gpoi = 20 }", "controls.alarm.red", "no source given"),
    ("[controls.alarm]\nred = { gpio = 20, pul = \"up\" }", "controls.alarm.red.pul", "unknown key"),
    ("[controls.alarm]\nred = { gpio = 20, pull = \"none\" }", "controls.alarm.red.active", "needs 'active'"),
    ("[controls.alarm]\nred = { matrix = [0, 0] }", "coprocessor", "no [coprocessor] rows and cols"),
    ("[controls.knob]\nmain = { encoder = [20, 20] }", "controls.knob.main.encoder", "must differ"),
    ("[controls.slider]\nblue = { pico_adc = 3 }", "controls.slider.blue.pico_adc", "out of range"),
    ("[controls.slider]\nblue = { pico_adc = 0, calibration = [0.5, 0.5] }",
     "controls.slider.blue.calibration", "two different readings"),
    ("bogus = 1", "bogus", "unknown key"),
])
def test_each_mistake_gets_one_line_naming_it(tmp_path, extra, key, words):
    # top-level keys must come before the first table
    text = extra + "\n" + SMALL_TEXT if extra.startswith("bogus") else SMALL_TEXT + extra + "\n"
    errors = errors_of(tmp_path, text)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{tmp_path / 'map.toml'}: {key}: "), errors[0]
    assert words in errors[0]


def test_i2c_and_uart_reserve_their_pins(tmp_path):
    text = SMALL_TEXT.replace('buses = ["spi0"]', 'buses = ["spi0", "i2c", "uart"]')
    errors = errors_of(tmp_path, text + "[controls.switch]\nleft = { gpio = 3 }\nmiddle = { gpio = 14 }\n")
    assert len(errors) == 2
    assert "GPIO3 is I2C SCL, reserved because the map uses i2c" in errors[0]
    assert "GPIO14 is UART TXD" in errors[1]


def test_neopixel_on_a_pin_its_driver_cannot_drive(tmp_path):
    errors = errors_of(tmp_path, SMALL_TEXT.replace("gpio = 10\n", "gpio = 18\n"))
    assert len(errors) == 1 and "neopixel.gpio" in errors[0]
    assert "the 'spi' NeoPixel driver cannot drive GPIO18 (it drives GPIO10, GPIO20)" in errors[0]
    pwm = SMALL_TEXT.replace('driver = "spi"', 'driver = "pwm"').replace("gpio = 10\n", "gpio = 4\n")
    errors = errors_of(tmp_path, pwm)
    assert len(errors) == 1 and "the 'pwm' NeoPixel driver cannot drive GPIO4" in errors[0]


def test_neopixel_pwm_clashes_with_the_buzzer_channel_and_the_pi5(tmp_path):
    pwm = SMALL_TEXT.replace('driver = "spi"', 'driver = "pwm"').replace("gpio = 10\n", "gpio = 18\n")
    errors = errors_of(tmp_path, pwm)
    assert len(errors) == 1 and "buzzer.gpio" in errors[0] and "shares PWM channel 0" in errors[0]
    errors = errors_of(tmp_path, 'model = "5"\n' + pwm.replace("gpio = 12", "gpio = 13"))
    assert len(errors) == 1 and "does not work on a Pi 5" in errors[0]


def test_neopixel_cannot_share_spi0_with_the_mcp3008(tmp_path):
    errors = errors_of(tmp_path, SMALL_TEXT + "[controls.slider]\nblue = { mcp3008 = 0 }\n")
    assert len(errors) == 1 and "take the MCP3008's SPI traffic as pixel data" in errors[0]


def test_buzzer_needs_a_pwm_pin(tmp_path):
    errors = errors_of(tmp_path, SMALL_TEXT.replace("gpio = 12", "gpio = 4"))
    assert len(errors) == 1 and "buzzer.gpio" in errors[0] and "no hardware PWM" in errors[0]


def test_pixels_overlapping_or_past_the_end(tmp_path):
    errors = errors_of(tmp_path, SMALL_TEXT.replace("timer = { first = 0, count = 8 }",
                                                    "timer = { first = 0, count = 8 }\n"
                                                    "progress = { first = 6, count = 5 }"))
    assert errors and all("neopixel.progress" in e for e in errors)
    assert "pixel 6 is already given to neopixel.timer" in errors[0]
    assert any("pixel 10 is past the end of the chain (10 pixels, 0-9)" in e for e in errors)


def test_neopixel_button_led_for_an_unknown_control(tmp_path):
    errors = errors_of(tmp_path, SMALL_TEXT.replace("[buzzer]", "[neopixel.buttons]\ncross.middle = 9\n[buzzer]"))
    assert len(errors) == 1 and "neopixel.buttons.cross.middle" in errors[0] and "unknown control id" in errors[0]


def test_matrix_cell_twice_and_outside(tmp_path):
    text = SMALL_TEXT + ("[coprocessor]\nrows = [0, 1]\ncols = [2, 3]\n"
                         "[controls.alarm]\nred = { matrix = [0, 0] }\nyellow = { matrix = [0, 0] }\n"
                         "green = { matrix = [2, 0] }\n")
    errors = errors_of(tmp_path, text)
    assert len(errors) == 2, errors
    assert "controls.alarm.yellow.matrix: matrix cell (0, 0) is used twice (also by alarm.red)" in errors[0]
    assert "cell (2, 0) is outside the 2x2 matrix" in errors[1]


def test_pico_pin_used_twice(tmp_path):
    text = SMALL_TEXT + "[coprocessor]\nrows = [26, 1]\ncols = [2, 3]\n[controls.slider]\nblue = { pico_adc = 0 }\n"
    errors = errors_of(tmp_path, text)
    assert len(errors) == 1 and "Pico GP26 is used twice (also by matrix row 0)" in errors[0]


def test_load_map_raises_with_every_problem(tmp_path):
    p = write(tmp_path, SMALL_TEXT + "[controls.switch]\nleft = { gpio = 17 }\nright = { gpio = 99 }\n")
    with pytest.raises(ConfigError) as e:
        load_map(p)
    assert len(e.value.problems) == 2


def test_bad_toml_and_missing_file(tmp_path):
    assert "not valid TOML" in errors_of(tmp_path, "controls = [")[0]
    errors, _ = check_map(tmp_path / "nope.toml")
    assert "file not found" in str(errors[0])


# -- the command line ------------------------------------------------------------------

def test_cli_good_maps_exit_zero(capsys):
    assert main(["hardware", "check", str(REFERENCE), "--strict"]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["hardware", "check", str(SMALL)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("warning: ") for line in err)


def test_cli_bad_map_one_line_per_problem(tmp_path, capsys):
    p = write(tmp_path, SMALL_TEXT + "[controls.switch]\nleft = { gpio = 17 }\n[controls.grid]\nr9c9 = { gpio = 20 }\n")
    assert main(["hardware", "check", str(p)]) != 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert len(err) == 2
    assert "GPIO17 is used twice" in err[0] and "unknown control id 'grid.r9c9'" in err[1]


def test_cli_strict_turns_unmapped_into_errors(capsys):
    assert main(["hardware", "check", str(SMALL), "--strict"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("error: ") and "unmapped" in line for line in err)


def test_cli_bad_layout_file_is_named(tmp_path, capsys):
    bad = tmp_path / "layout.toml"
    bad.write_text("name = 1\n")
    assert main(["hardware", "check", str(SMALL), "--layout", str(bad)]) == 2
    assert "layout.toml" in capsys.readouterr().err


def test_shipped_maps_are_found_by_name_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert shipped_maps() == ["reference", "small"]
    assert load_map("reference").source == str(MAPS_DIR / "reference.toml")
    assert main(["hardware", "check", "reference", "--strict"]) == 0
    assert main(["hardware", "check", "nosuch"]) == 2
    assert capsys.readouterr().err == "error: nosuch: no such file, nor a shipped map (reference, small)\n"
    # A file of the same name in the current folder is the maker's own: it wins.
    (tmp_path / "small.toml").write_text("bogus = 1\n")
    assert main(["hardware", "check", "small.toml"]) == 2
    assert "small.toml: bogus: unknown key" in capsys.readouterr().err
