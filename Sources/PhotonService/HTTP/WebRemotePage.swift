/// The web remote's page and stylesheet: served by the daemon, no external resources (no
/// CDN, no fonts from elsewhere), and a Content-Security-Policy that allows nothing else.
/// Hooks for tests and scripts are part of the contract: the pairing form's `code`, every
/// control's `data-key` / `data-action`, the `tv` select, `data-status`, `data-gesture-arm`,
/// `data-voice-status` (and `data-live` on the voice button while the microphone is on).
enum WebRemotePage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
        <meta name="color-scheme" content="dark light">
        <title>Photon remote</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <main>
        <section id="pairing" hidden>
          <h1>Pair this device</h1>
          <p>On the machine running <code>photon serve</code>, run <code>photon web pair</code> and enter the code it shows.</p>
          <form id="pair-form" autocomplete="off">
            <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="16"></label>
            <label>Name of this device <input name="name" maxlength="64" placeholder="phone"></label>
            <button type="submit" data-action="pair">Pair</button>
          </form>
          <p class="error" data-pair-error role="alert"></p>
        </section>

        <section id="remote" hidden>
          <header>
            <label class="picker">TV <select name="tv" aria-label="TV"></select></label>
            <button data-key="power" class="power" aria-label="Power"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M12 3v8"/><path d="M6.3 6.3a8 8 0 1 0 11.4 0"/></svg></button>
          </header>
          <p class="status" data-status role="status" aria-live="polite">Connecting…</p>

          <div class="dpad" role="group" aria-label="Navigation">
            <button data-key="up" class="up" aria-label="Up">▲</button>
            <button data-key="left" class="left" aria-label="Left">◀</button>
            <button data-key="select" class="ok" aria-label="OK">OK</button>
            <button data-key="right" class="right" aria-label="Right">▶</button>
            <button data-key="down" class="down" aria-label="Down">▼</button>
          </div>

          <div class="row">
            <button data-key="back" aria-label="Back">↩ Back</button>
            <button data-key="home" aria-label="Home">⌂ Home</button>
            <button data-key="menu" aria-label="Menu">☰</button>
          </div>
          <div class="row">
            <button data-key="volume-down" aria-label="Volume down"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M16 12h5"/></svg></button>
            <button data-key="mute" aria-label="Mute"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M16 9l5 6M21 9l-5 6"/></svg></button>
            <button data-key="volume-up" aria-label="Volume up"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/><path d="M16 12h5M18.5 9.5v5"/></svg></button>
          </div>
          <div class="row">
            <button data-key="rewind" aria-label="Rewind"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M11 6l-7 6 7 6zM20 6l-7 6 7 6z" fill="currentColor"/></svg></button>
            <button data-key="play-pause" aria-label="Play or pause"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 6l8 6-8 6z" fill="currentColor"/><path d="M16 6v12M20 6v12"/></svg></button>
            <button data-key="fast-forward" aria-label="Fast forward"><svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 6l7 6-7 6zM13 6l7 6-7 6z" fill="currentColor"/></svg></button>
          </div>

          <div class="gesture">
            <button data-gesture-arm aria-label="Hold to use motion gestures">Hold for gestures</button>
            <p class="hint" data-gesture-status>Hold the button, then flick the phone left, right, up or down; flick toward you for OK.</p>
          </div>

          <div class="voice" data-voice hidden>
            <button data-action="voice" aria-label="Hold to talk">🎤 Hold to talk</button>
            <p class="hint" data-voice-status role="status" aria-live="polite">Hold the button and speak; release when you are done. The audio stays on this network.</p>
            <div class="line" data-voice-guess hidden>
              <button data-action="voice-send">Send it</button>
              <button data-action="voice-cancel">Cancel</button>
            </div>
          </div>

          <form class="line" data-form="text" autocomplete="off">
            <input name="text" placeholder="Type on the TV" maxlength="4096" aria-label="Text">
            <button type="submit" data-action="text">Send</button>
          </form>

          <details open>
            <summary>Apps</summary>
            <div class="chips" data-list="apps"></div>
            <form class="line" data-form="launch" autocomplete="off">
              <input name="app" placeholder="App name (youtube, netflix…)" maxlength="256" aria-label="App">
              <button type="submit" data-action="launch">Open</button>
            </form>
          </details>
          <details>
            <summary>Inputs</summary>
            <div class="chips" data-list="inputs"></div>
          </details>
          <details>
            <summary>Macros</summary>
            <div class="chips" data-list="macros"></div>
          </details>
          <details data-homekit hidden>
            <summary>Apple Home</summary>
            <p>In the Home app: Add Accessory, then scan this code or type <strong data-homekit-code></strong>.</p>
            <div class="qr" data-homekit-qr></div>
          </details>
          <p class="footer"><span data-client></span> · <a href="/api/v1/openapi.json">API</a></p>
        </section>
        </main>
        </body>
        </html>

        """

    static let css = """
        :root { --bg: #111418; --fg: #e8eaed; --key: #22272e; --key-hi: #2f3742; --accent: #4c8dff; --muted: #9aa0a6; --danger: #d9534f; }
        @media (prefers-color-scheme: light) { :root { --bg: #f5f6f8; --fg: #15171a; --key: #ffffff; --key-hi: #e6e9ee; --muted: #5f6368; } }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.4 system-ui, sans-serif; }
        main { max-width: 420px; margin: 0 auto; padding: 12px 14px calc(16px + env(safe-area-inset-bottom)); }
        h1 { font-size: 1.3rem; }
        button, select, input { font: inherit; color: inherit; }
        button { background: var(--key); border: 1px solid var(--key-hi); border-radius: 14px; min-height: 52px; min-width: 52px;
          padding: 8px 12px; touch-action: manipulation; user-select: none; -webkit-user-select: none; }
        button:active, button.pressed { background: var(--key-hi); }
        button:focus-visible, select:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        button:disabled { opacity: 0.35; }
        header { display: flex; gap: 10px; align-items: center; justify-content: space-between; }
        .picker { display: flex; gap: 8px; align-items: center; flex: 1; }
        select, input { background: var(--key); border: 1px solid var(--key-hi); border-radius: 10px; padding: 10px; min-height: 44px; width: 100%; }
        .power { color: var(--danger); }
        button svg { display: block; margin: 0 auto; pointer-events: none; }
        .status { color: var(--muted); min-height: 1.4em; margin: 8px 0; font-size: 0.9rem; }
        .dpad { display: grid; grid-template-columns: repeat(3, 1fr); grid-template-rows: repeat(3, 76px); gap: 8px; margin: 8px 0 12px; }
        .dpad .up { grid-column: 2; grid-row: 1; } .dpad .left { grid-column: 1; grid-row: 2; } .dpad .ok { grid-column: 2; grid-row: 2; border-radius: 50%; }
        .dpad .right { grid-column: 3; grid-row: 2; } .dpad .down { grid-column: 2; grid-row: 3; }
        .row { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; margin-bottom: 8px; }
        .gesture { margin: 12px 0; } .gesture button { width: 100%; } .gesture button.armed { background: var(--accent); color: #fff; }
        .qr svg { width: 220px; height: 220px; display: block; margin: 8px auto; }
        .voice button[data-action=voice] { width: 100%; } .voice button.live { background: var(--danger); color: #fff; }
        .voice .line button { flex: 1; }
        .hint { color: var(--muted); font-size: 0.85rem; margin: 6px 0; }
        .line { display: flex; gap: 8px; margin: 10px 0; } .line input { flex: 1; }
        details { margin: 10px 0; } summary { cursor: pointer; padding: 8px 0; }
        .chips { display: flex; flex-wrap: wrap; gap: 6px; } .chips button { min-height: 40px; border-radius: 20px; font-size: 0.9rem; }
        .error { color: var(--danger); min-height: 1.4em; }
        .footer { color: var(--muted); font-size: 0.8rem; text-align: center; } a { color: var(--accent); }
        form label { display: block; margin: 10px 0; }

        """
}
