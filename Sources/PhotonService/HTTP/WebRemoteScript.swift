/// The web remote's script. Every page load opens a router session bound to one TV
/// (switching TV closes it and opens another, so what was pending is cancelled); commands
/// carry sequence numbers and live one second; the page and the door agree on the protocol
/// version or the page stops. Gestures follow the seeds' rules: an explicit, held arm that
/// expires, ends when the page is hidden or loses focus, neutral recovery between
/// gestures, and only what the daemon's gesture source allows (it refuses the rest).
enum WebRemoteScript {
    /// The whole script: the page's core, its microphone (WebRemoteVoiceScript.swift), then
    /// the wiring of its controls.
    static var javascript: String { core + "\n\n" + voice + "\n\n" + wiring }

    static let core = #"""
        "use strict";
        (() => {
        const PROTOCOL = 1;
        const COOKIE_LENGTH = 22; // PresentedToken.cookieLength: the rest of the token is this page's key
        // Arming lasts 10 s; `?arm=SECONDS` shortens it (0.5 to 10), for a tighter habit or a test.
        const ARM_SECONDS = Math.min(10, Math.max(0.5, Number(new URLSearchParams(location.search).get("arm")) || 10));
        const FLICK = 12;      // m/s² of linear acceleration that counts as a flick
        const REST = 2.5;      // m/s² under which the phone is at rest again
        const REST_MS = 250;   // how long it must stay at rest before the next gesture
        const $ = (selector) => document.querySelector(selector);
        const $$ = (selector) => Array.from(document.querySelectorAll(selector));
        const state = { tv: null, session: null, seq: 0, events: null, capabilities: null, stopped: false,
          gesture: { session: null, seq: 0, until: 0, timer: null, recovering: false, restSince: 0, holding: false, hold: 0 } };

        function setStatus(text) { $("[data-status]").textContent = text; }
        function uuid() {
          const b = crypto.getRandomValues(new Uint8Array(16));
          b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
          const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
          return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
        }

        async function api(method, path, body) {
          const init = { method, credentials: "same-origin", headers: { "Photon-Web-Protocol": String(PROTOCOL) } };
          // The cookie holds the token's first half; this origin's storage holds the rest.
          const key = localStorage.getItem("photon.key");
          if (key) init.headers["Photon-Page-Key"] = key;
          if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
          const response = await fetch(path, init);
          let data = null;
          try { data = await response.json(); } catch (_) { data = null; }
          if (response.status === 409 && data && data.code === "protocol-mismatch") stop("This page is out of date: reload it.");
          if (response.status === 401) { showPairing(); }
          if (!response.ok) {
            const error = new Error((data && data.error) || `HTTP ${response.status}`);
            error.code = data && data.code; error.status = response.status; error.hint = data && data.hint;
            throw error;
          }
          return data;
        }

        function stop(message) {
          state.stopped = true;
          disarm();
          if (state.events) state.events.close();
          voice.holding = false; endVoice();
          $$("button, input, select").forEach((el) => { el.disabled = true; });
          setStatus(message);
        }

        function showPairing() {
          $("#remote").hidden = true; $("#pairing").hidden = false;
          // A scanned QR code carries the pairing code in the fragment, never sent over the network.
          const fromLink = new URLSearchParams(location.hash.slice(1)).get("code");
          if (fromLink) { $("#pair-form").code.value = fromLink; history.replaceState(null, "", location.pathname + location.search); }
          if (state.events) { state.events.close(); state.events = null; }
        }

        async function pair(event) {
          event.preventDefault();
          const form = event.target;
          const error = $("[data-pair-error]");
          error.textContent = "";
          try {
            const paired = await api("POST", "/api/v1/pair", { code: form.code.value, name: form.name.value || "phone" });
            localStorage.setItem("photon.key", paired.token.slice(COOKIE_LENGTH));
            form.reset();
            await start();
          } catch (e) { error.textContent = e.message; }
        }

        // MARK: the TV and its session

        async function start() {
          const version = await api("GET", "/api/v1/version");
          if (version.protocol !== PROTOCOL) { stop("This page is out of date: reload it."); return; }
          let me;
          try { me = await api("GET", "/api/v1/whoami"); } catch (_) { return; }
          $("#pairing").hidden = true; $("#remote").hidden = false;
          $("[data-client]").textContent = `Paired as ${me.name}`;
          const { tvs } = await api("GET", "/api/v1/tvs");
          const select = $("select[name=tv]");
          select.replaceChildren(...tvs.map((tv) => new Option(`${tv.nickname} (${tv.brand})`, tv.nickname)));
          if (tvs.length === 0) { setStatus("No TV is paired yet: run `photon pair` first."); return; }
          const remembered = localStorage.getItem("photon.tv");
          if (tvs.some((tv) => tv.nickname === remembered)) select.value = remembered;
          await choose(select.value);
          loadMacros();
        }

        async function choose(name) {
          disarm(); voice.holding = false; endVoice();
          if (state.session) api("DELETE", `/api/v1/sessions/${state.session}`).catch(() => {});
          state.tv = name; state.session = null; state.seq = 0; state.keys = null; live = {}; flashUntil = 0;
          localStorage.setItem("photon.tv", name);
          setStatus(`Connecting to ${name}…`);
          try {
            const opened = await api("POST", `/api/v1/tvs/${encodeURIComponent(name)}/sessions`);
            state.session = opened.sessionId;
          } catch (e) { setStatus(`${name}: ${e.message}`); }
          listen(name);
          refreshStatus(name);
          loadList("apps"); loadList("inputs");
          loadHomeKit(name);
        }

        // The Apple Home section: the setup code and its QR code while nobody is paired.
        async function loadHomeKit(name) {
          const section = $("[data-homekit]");
          try {
            const { homekit } = await api("GET", `/api/v1/tvs/${encodeURIComponent(name)}/homekit`);
            if (name !== state.tv) return;
            section.hidden = !(homekit && homekit.served && !homekit.paired && homekit.setupCode);
            if (section.hidden) return;
            $("[data-homekit-code]").textContent = homekit.setupCode;
            $("[data-homekit-qr]").innerHTML = homekit.qrSVG || "";
          } catch (_) { section.hidden = true; }
        }

        async function refreshStatus(name) {
          try {
            const { tv } = await api("GET", `/api/v1/tvs/${encodeURIComponent(name)}`);
            if (name !== state.tv) return;
            state.capabilities = tv.capabilities || null;
            state.keys = Array.isArray(tv.keys) ? tv.keys : null;
            applyCapabilities();
            describe(tv);
          } catch (e) { if (name === state.tv) setStatus(`${name}: ${e.message}`); }
        }

        // The status line is the TV's state merged from its status and every event since
        // (connection · power · app · volume), never one raw event; an error shows for a few
        // seconds, then the state again.
        let live = {};
        let flashUntil = 0;
        function describe(tv) {
          live = { connection: tv.connection, power: tv.power_state || tv.power, app: tv.app_name || tv.app, volume: tv.volume,
            playback: tv.playback };
          render();
        }
        function merge(event) {
          if (event.event === "connection") { live.connection = event.state; if (event.error) flash(event.error.message); }
          else if (event.event === "disconnected") live.connection = "disconnected";
          else if (event.event === "power" || event.event === "power_state") live.power = event.power_state || event.power;
          else if (event.event === "app") live.app = event.app_name || event.app;
          else if (event.event === "volume") live.volume = event.volume;
          else if (event.event === "playback") live.playback = event.playback;
          render();
        }
        function render() {
          if (Date.now() < flashUntil || !state.tv) return;
          const parts = [state.tv, live.connection];
          if (live.power) parts.push(live.power === "on" ? "on" : live.power);
          if (live.app) parts.push(live.app);
          if (live.playback && typeof live.playback.state === "string" && live.playback.state !== "none") parts.push(live.playback.state === "play" ? "playing" : live.playback.state);
          if (live.volume && typeof live.volume.level === "number") parts.push(`vol ${live.volume.level}${live.volume.muted ? " (muted)" : ""}`);
          setStatus(parts.filter(Boolean).join(" · "));
        }
        // A short error on the status line for four seconds. Hints written for the command
        // line (`photon …`) mean nothing on a phone and are left out.
        function flash(message, hint) {
          const useful = hint && !/photon |`/.test(hint);
          setStatus(`${state.tv ? state.tv + ": " : ""}${message}${useful ? " — " + hint : ""}`);
          flashUntil = Date.now() + 4000;
          setTimeout(render, 4100);
        }

        const needs = { text: "text", launch: "app-launch", input: "inputs", apps: "app-list", inputs: "input-list" };
        function applyCapabilities() {
          const caps = state.capabilities;
          const have = (capability) => !caps || caps.includes(capability);
          // A key the TV's brand has no code for is disabled, with the reason as its tooltip.
          const keys = state.keys;
          $$("[data-key]").forEach((b) => {
            const lacks = !have("keys") ? "This TV takes no keys" : (keys && !keys.includes(b.dataset.key) ? "This TV has no such key" : "");
            b.disabled = lacks !== ""; b.title = lacks;
          });
          $$("[data-action=text]").forEach((b) => { b.disabled = !have(needs.text); b.title = b.disabled ? "This TV cannot type text" : ""; });
          $$("[data-action=launch]").forEach((b) => { b.disabled = !have(needs.launch); b.title = b.disabled ? "This TV cannot open apps" : ""; });
        }

        function listen(name) {
          if (state.events) state.events.close();
          const scheme = location.protocol === "https:" ? "wss" : "ws";
          const socket = new WebSocket(`${scheme}://${location.host}/api/v1/events?tv=${encodeURIComponent(name)}&protocol=${PROTOCOL}`,
            ["photon-web", `photon-key.${localStorage.getItem("photon.key") || ""}`]);
          state.events = socket;
          socket.onmessage = (message) => {
            if (name !== state.tv) return;
            let event; try { event = JSON.parse(message.data); } catch (_) { return; }
            merge(event);
          };
          socket.onclose = (close) => {
            if (state.events !== socket || state.stopped) return;
            if (close.code === 1008) { showPairing(); return; }
            // Cut off: revoked (the check shows the pairing form), or the daemon restarting.
            setTimeout(() => {
              if (state.events !== socket || state.stopped) return;
              api("GET", "/api/v1/whoami").then(() => listen(name), () => {});
            }, 1000);
          };
        }

        // MARK: commands

        async function send(command, retry = true) {
          if (!state.tv || state.stopped) return;
          const now = Date.now() / 1000;
          const body = Object.assign({ commandId: uuid(), issuedAt: now, expiresAt: now + 1 }, command);
          if (state.session) { body.sessionId = state.session; body.seq = ++state.seq; }
          try {
            const answer = await api("POST", `/api/v1/tvs/${encodeURIComponent(state.tv)}/commands`, body);
            return answer;
          } catch (e) {
            if (retry && e.code === "unknown-session") {
              const opened = await api("POST", `/api/v1/tvs/${encodeURIComponent(state.tv)}/sessions`);
              state.session = opened.sessionId; state.seq = 0;
              return send(command, false);
            }
            flash(e.message, e.hint);
          }
        }

        function press(button) {
          button.classList.add("pressed");
          setTimeout(() => button.classList.remove("pressed"), 120);
          send({ key: button.dataset.key });
        }

        async function loadList(kind) {
          const box = $(`[data-list=${kind}]`);
          box.replaceChildren();
          const name = state.tv;
          try {
            const data = await api("GET", `/api/v1/tvs/${encodeURIComponent(name)}/${kind}`);
            if (name !== state.tv) return;
            for (const item of (data[kind] || []).slice(0, 60)) {
              const b = document.createElement("button");
              if (kind === "apps") {
                b.textContent = item.name || item.label || item.id;
                b.dataset.action = "launch"; b.dataset.value = item.id;
              } else {
                // An input is switched to by its standard name (hdmi2), else by the TV's label.
                b.textContent = item.label || item.name || item.id;
                b.dataset.action = "input"; b.dataset.value = item.name || item.label || item.id;
              }
              box.append(b);
            }
          } catch (e) {
            const note = document.createElement("p"); note.className = "hint"; note.textContent = e.message; box.append(note);
          }
        }

        async function loadMacros() {
          const box = $("[data-list=macros]");
          try {
            const { macros } = await api("GET", "/api/v1/macros");
            box.replaceChildren(...macros.map((m) => {
              const b = document.createElement("button"); b.textContent = m.name; b.dataset.action = "run"; b.dataset.value = m.name; return b;
            }));
            if (macros.length === 0) box.textContent = "No saved macros (photon macro save).";
          } catch (e) { box.textContent = e.message; }
        }

        async function runMacro(name) {
          setStatus(`Running ${name}…`);
          try {
            const { results } = await api("POST", `/api/v1/tvs/${encodeURIComponent(state.tv)}/run`, { macro: name });
            const failed = results.filter((r) => r.ok === false);
            setStatus(failed.length ? `${name}: ${failed.length} step(s) failed` : `${name}: done`);
          } catch (e) { setStatus(`${name}: ${e.message}`); }
        }

        // MARK: gestures

        // The hold is the consent: every await below may outlast it (the motion prompt, the
        // round trip), so each step checks that this same hold is still down. A tap shorter
        // than the round trip must not leave the page armed after the finger has lifted.
        async function arm() {
          const g = state.gesture;
          if (!state.tv || state.stopped || g.holding) return;
          const hold = ++g.hold;
          g.holding = true;
          const held = () => g.holding && g.hold === hold;
          if (typeof DeviceMotionEvent !== "undefined" && typeof DeviceMotionEvent.requestPermission === "function") {
            try { if (await DeviceMotionEvent.requestPermission() !== "granted") { gestureNote("Motion access was refused."); return; } }
            catch (_) { gestureNote("Motion access was refused."); return; }
            if (!held()) { gestureNote("Motion allowed: hold the button to arm."); return; }
          }
          try {
            const armed = await api("POST", `/api/v1/tvs/${encodeURIComponent(state.tv)}/gesture/arm`, { seconds: ARM_SECONDS });
            if (!held()) {
              // Released while the daemon answered: end the session it just opened.
              api("DELETE", `/api/v1/sessions/${armed.sessionId}`).catch(() => {});
              gestureNote("Released before arming: hold the button.");
              return;
            }
            g.session = armed.sessionId; g.seq = 0; g.until = armed.armedUntil * 1000; g.recovering = false;
            clearTimeout(g.timer);
            g.timer = setTimeout(disarm, Math.max(0, g.until - Date.now()));
            $("[data-gesture-arm]").classList.add("armed");
            $("[data-gesture-arm]").dataset.armed = "true";
            gestureNote("Armed: flick now.");
          } catch (e) { gestureNote(e.message); }
        }

        function disarm() {
          const g = state.gesture;
          g.holding = false;
          clearTimeout(g.timer);
          const button = $("[data-gesture-arm]");
          if (button) { button.classList.remove("armed"); delete button.dataset.armed; }
          if (g.session) {
            const id = g.session; g.session = null;
            api("DELETE", `/api/v1/sessions/${id}`).catch(() => {});
            gestureNote("Not armed.");
          }
        }

        function gestureNote(text) { $("[data-gesture-status]").textContent = text; }

        function onMotion(event) {
          const g = state.gesture;
          if (!g.session) return;
          if (Date.now() > g.until || document.hidden || !document.hasFocus()) { disarm(); return; }
          const a = event.acceleration || {};
          const x = a.x || 0, y = a.y || 0, z = a.z || 0;
          const size = Math.hypot(x, y, z);
          if (g.recovering) {
            // Neutral recovery: the phone must be back at rest before the next gesture counts.
            if (size < REST) { if (!g.restSince) g.restSince = Date.now(); if (Date.now() - g.restSince >= REST_MS) g.recovering = false; }
            else g.restSince = 0;
            return;
          }
          if (size < FLICK) return;
          let key;
          const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
          if (az > ax && az > ay) key = "select";
          else if (ax > ay) key = x > 0 ? "right" : "left";
          else key = y > 0 ? "up" : "down";
          g.recovering = true; g.restSince = 0;
          sendGesture(key);
        }

        async function sendGesture(key) {
          const g = state.gesture;
          const now = Date.now() / 1000;
          try {
            await api("POST", `/api/v1/tvs/${encodeURIComponent(state.tv)}/commands`,
              { key, source: "gesture", sessionId: g.session, seq: ++g.seq, commandId: uuid(), issuedAt: now, expiresAt: now + 1 });
            gestureNote(`Sent ${key}.`);
          } catch (e) { gestureNote(e.message); if (e.code === "gesture-not-armed") disarm(); }
        }
        """#

    static let wiring = #"""
        // MARK: wiring

        document.addEventListener("DOMContentLoaded", () => {
          $("#pair-form").addEventListener("submit", pair);
          $("select[name=tv]").addEventListener("change", (e) => choose(e.target.value));
          $$("[data-key]").forEach((b) => b.addEventListener("click", () => press(b)));
          document.body.addEventListener("click", (e) => {
            const b = e.target.closest("[data-action]");
            if (!b || !b.dataset.value) return;
            if (b.dataset.action === "launch") send({ launch: b.dataset.value });
            if (b.dataset.action === "input") send({ input: b.dataset.value });
            if (b.dataset.action === "run") runMacro(b.dataset.value);
          });
          $("[data-form=text]").addEventListener("submit", (e) => { e.preventDefault(); const t = e.target.text; if (t.value) send({ text: t.value }); t.value = ""; });
          $("[data-form=launch]").addEventListener("submit", (e) => { e.preventDefault(); const t = e.target.app; if (t.value) send({ launch: t.value }); t.value = ""; });
          const armButton = $("[data-gesture-arm]");
          armButton.addEventListener("pointerdown", (e) => { e.preventDefault(); arm(); });
          ["pointerup", "pointercancel", "pointerleave"].forEach((n) => armButton.addEventListener(n, disarm));
          armButton.addEventListener("keydown", (e) => { if (e.key === " " && !e.repeat) arm(); });
          armButton.addEventListener("keyup", (e) => { if (e.key === " ") disarm(); });
          const talkButton = $("[data-action=voice]");
          $("[data-voice]").hidden = !voiceAvailable();
          talkButton.addEventListener("pointerdown", (e) => { e.preventDefault(); talk(); });
          ["pointerup", "pointercancel", "pointerleave"].forEach((n) => talkButton.addEventListener(n, release));
          talkButton.addEventListener("keydown", (e) => { if (e.key === " " && !e.repeat) { e.preventDefault(); talk(); } });
          talkButton.addEventListener("keyup", (e) => { if (e.key === " ") release(); });
          talkButton.addEventListener("contextmenu", (e) => e.preventDefault());
          $("[data-action=voice-send]").addEventListener("click", () => answerGuess(true));
          $("[data-action=voice-cancel]").addEventListener("click", () => answerGuess(false));
          const away = () => { disarm(); release(); };
          window.addEventListener("blur", away);
          document.addEventListener("visibilitychange", () => { if (document.hidden) away(); });
          window.addEventListener("pagehide", away);
          window.addEventListener("devicemotion", onMotion);
          document.addEventListener("keydown", (e) => {
            if (e.target.closest("input, select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
            const keys = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right", Enter: "select", Backspace: "back",
              Escape: "back", h: "home", "+": "volume-up", "-": "volume-down", m: "mute", " ": "play-pause" };
            const key = keys[e.key];
            if (!key || e.target === armButton || e.target === talkButton) return;
            e.preventDefault();
            const b = $(`[data-key="${key}"]`);
            if (b && !b.disabled) press(b);
          });
          start().catch((e) => setStatus(e.message));
        });
        })();

        """#
}
