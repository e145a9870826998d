"""The web remote's microphone in headless Chromium, its fake microphone playing a WAV file.

Pairs with a code, then holds the hold-to-talk button for the length of the recording on
each TV in turn (the page's audio goes over the authenticated WebSocket to the daemon),
and reports what the page said. After "ready-for-revoke" it holds the button again, waits
for a line on stdin (the test revokes the client meanwhile), and reports how the page's
microphone ended and whether a new voice stream is refused. One JSON line per step.

    web_remote_voice.py URL CODE WAV SECONDS TV[,TV...]
"""

import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


def say(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def text(driver, selector):
    return driver.find_element(By.CSS_SELECTOR, selector).text


def wait(driver, condition, what, timeout=30):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d))
    except Exception:
        logs = [entry.get("message") for entry in driver.get_log("browser")]
        raise SystemExit(f"timed out waiting for {what}; status {text(driver, '[data-status]')!r}; "
                         f"voice {text(driver, '[data-voice-status]')!r}; console {logs}")


def main():
    url, code, wav, seconds, tvs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5].split(",")
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=390,844", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update",
                     # The microphone: allowed without a prompt, fed from the WAV file, played once.
                     "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                     f"--use-file-for-fake-audio-capture={wav}%noloop",
                     "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url)
        wait(driver, lambda d: d.find_element(By.ID, "pairing").is_displayed(), "the pairing form")
        form = driver.find_element(By.ID, "pair-form")
        form.find_element(By.NAME, "code").send_keys(code)
        form.find_element(By.NAME, "name").send_keys("chromium")
        form.find_element(By.CSS_SELECTOR, "[data-action=pair]").click()
        wait(driver, lambda d: d.find_element(By.ID, "remote").is_displayed(), "the remote after pairing")
        talk = driver.find_element(By.CSS_SELECTOR, "[data-action=voice]")
        say("paired", voice_shown=talk.is_displayed())

        select = Select(driver.find_element(By.NAME, "tv"))
        for tv in tvs:
            select.select_by_value(tv)
            wait(driver, lambda d: (lambda t: t.startswith(tv) and "Connecting" not in t and "·" in t)(text(d, "[data-status]")),
                 f"{tv}'s status")
            ActionChains(driver).click_and_hold(talk).perform()
            wait(driver, lambda d: talk.get_attribute("data-live") == "true", f"the microphone on for {tv}", timeout=10)
            live_note = text(driver, "[data-voice-status]")
            time.sleep(seconds)
            ActionChains(driver).release(talk).perform()
            off = talk.get_attribute("data-live") is None
            # Any outcome: sent, a guess, nothing sent, or an error.
            wait(driver, lambda d: not text(d, "[data-voice-status]").startswith(("●", "Microphone off", "Heard")), f"{tv}'s answer")
            say("spoke", tv=tv, live_note=live_note, off_after_release=off, note=text(driver, "[data-voice-status]"))
            time.sleep(0.3)

        # The microphone is on when the client is revoked: the daemon cuts it, the page shows it.
        ActionChains(driver).click_and_hold(talk).perform()
        wait(driver, lambda d: talk.get_attribute("data-live") == "true", "the microphone on before revocation", timeout=10)
        say("ready-for-revoke")
        sys.stdin.readline()
        wait(driver, lambda d: talk.get_attribute("data-live") is None, "the microphone off after revocation", timeout=15)
        # (The page shows its pairing form again: the button is gone, and with it the hold.)
        ActionChains(driver).release().perform()
        note = text(driver, "[data-voice-status]") if talk.is_displayed() else driver.execute_script(
            "return document.querySelector('[data-voice-status]').textContent;")
        # A new voice stream of the revoked page is refused at the door.
        opened = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const socket = new WebSocket(`ws://${location.host}/api/v1/tvs/${encodeURIComponent(arguments[0])}/voice?protocol=1`,
              ["photon-web", `photon-key.${localStorage.getItem("photon.key") || ""}`]);
            socket.onopen = () => { socket.close(); done("opened"); };
            socket.onclose = (e) => done(`closed ${e.code}`);
            """, tvs[-1])
        say("revoked", note=note, reopened=opened)
        say("done")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
