"""A cockpit started on a full disk plays on a copy in memory (panel.run.open_store, tested
on a real full tmpfs in test_damaged_database.py): the board tells the room that nothing is
saved, and the game master's page says why."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect, sync_playwright

from browser_helpers import ARGS, CHROMIUM, WAIT
from panel.core.i18n import N_, Text

pytestmark = pytest.mark.browser


def test_a_cockpit_that_saves_nothing_says_so_on_the_board_and_the_admin_page(tmp_path):
    from service_helpers import PIN as THREAD_PIN, ServiceThread

    why = Text(N_("the disk is full ({db}): this cockpit plays without saving anything until it "
                  "restarts with space free"), db="/var/lib/penguin-panel/panel.db")

    def unsaved(svc):
        svc.cockpit.unsaved = why  # as open_store found it at start
        svc.cockpit.warnings.append(why)

    with sync_playwright() as p, ServiceThread(tmp_path / "panel.db") as svc:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            board = browser.new_page()
            board.goto(svc.base + "/board")
            expect(board.locator("#unsaved")).to_be_hidden(timeout=WAIT)
            svc.on_loop(lambda: unsaved(svc))
            board.reload()
            expect(board.locator("#unsaved")).to_contain_text("Nothing is saved: the disk is full", timeout=WAIT)
            admin = browser.new_page()
            admin.goto(svc.base + "/admin")
            admin.fill("#pin", THREAD_PIN)
            admin.click("#login button[type=submit]")
            expect(admin.locator("#warnings")).to_contain_text("plays without saving", timeout=WAIT)
        finally:
            browser.close()
