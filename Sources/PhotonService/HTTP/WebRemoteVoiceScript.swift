/// The web remote's microphone: hold to talk, the audio over the page's authenticated
/// WebSocket to the daemon, the guess it asks about. Part of `WebRemoteScript.javascript`.
extension WebRemoteScript {
    static let voice = #"""
        // MARK: voice

        // Hold to talk: the microphone is open exactly while the button is held (the page shows
        // it), and its audio goes only to the daemon, over this page's authenticated WebSocket.
        const voice = { socket: null, context: null, media: null, node: null, source: null, holding: false, hold: 0, queue: [] };
        function voiceNote(text) { $("[data-voice-status]").textContent = text; }
        function voiceAvailable() {
          return window.isSecureContext && navigator.mediaDevices && typeof navigator.mediaDevices.getUserMedia === "function"
            && typeof (window.AudioContext || window.webkitAudioContext) === "function";
        }
        function showGuess(shown) { $("[data-voice-guess]").hidden = !shown; }

        function stopCapture() {
          const button = $("[data-action=voice]");
          button.classList.remove("live"); delete button.dataset.live;
          if (voice.node) { voice.node.onaudioprocess = null; voice.node.disconnect(); voice.node = null; }
          if (voice.source) { voice.source.disconnect(); voice.source = null; }
          if (voice.media) { voice.media.getTracks().forEach((t) => t.stop()); voice.media = null; }
          if (voice.context) { voice.context.close().catch(() => {}); voice.context = null; }
        }

        function endVoice() {
          stopCapture();
          showGuess(false);
          if (voice.socket) { const s = voice.socket; voice.socket = null; s.close(); }
          voice.queue = [];
        }

        async function talk() {
          if (!state.tv || state.stopped || voice.holding) return;
          endVoice();
          const hold = ++voice.hold;
          voice.holding = true;
          const held = () => voice.holding && voice.hold === hold;
          const Context = window.AudioContext || window.webkitAudioContext;
          let context;
          try { context = new Context({ sampleRate: 16000 }); } catch (_) { context = new Context(); }
          voice.context = context;
          const scheme = location.protocol === "https:" ? "wss" : "ws";
          const socket = new WebSocket(
            `${scheme}://${location.host}/api/v1/tvs/${encodeURIComponent(state.tv)}/voice?protocol=${PROTOCOL}&rate=${Math.round(context.sampleRate)}`,
            ["photon-web", `photon-key.${localStorage.getItem("photon.key") || ""}`]);
          socket.binaryType = "arraybuffer";
          voice.socket = socket;
          socket.onopen = () => { for (const block of voice.queue) socket.send(block); voice.queue = []; if (!held()) socket.send(JSON.stringify({ end: true })); };
          socket.onmessage = (message) => { if (voice.socket === socket) voiceEvent(message); };
          socket.onclose = (close) => {
            if (voice.socket !== socket) return;
            // Closed before an outcome: refused at the door, revoked, or the daemon stopping.
            voice.socket = null;
            stopCapture(); showGuess(false); voice.holding = false;
            if (close.reason === "revoked") voiceNote("Voice stopped: this device is no longer paired.");
            else if (close.code === 1006) voiceNote("The daemon refused the microphone (is this device still paired?).");
            else voiceNote(`Voice ended (${close.reason || close.code}).`);
          };
          let media;
          try {
            media = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
          } catch (_) { voiceNote("Microphone access was refused."); endVoice(); voice.holding = false; return; }
          if (!held()) { media.getTracks().forEach((t) => t.stop()); voiceNote("Released before the microphone opened: hold the button while you speak."); endVoice(); return; }
          voice.media = media;
          voice.source = context.createMediaStreamSource(media);
          voice.node = context.createScriptProcessor(4096, 1, 1);
          voice.node.onaudioprocess = (e) => {
            const input = e.inputBuffer.getChannelData(0);
            const pcm = new Int16Array(input.length);
            for (let i = 0; i < input.length; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(input[i] * 32767)));
            if (socket.readyState === WebSocket.OPEN) socket.send(pcm.buffer);
            else if (socket.readyState === WebSocket.CONNECTING) voice.queue.push(pcm.buffer);
          };
          voice.source.connect(voice.node); voice.node.connect(context.destination);
          if (context.state === "suspended") await context.resume();
          const button = $("[data-action=voice]");
          button.classList.add("live"); button.dataset.live = "true";
          voiceNote("● Microphone on: speak, then release.");
        }

        function release() {
          if (!voice.holding) return;
          voice.holding = false;
          const wasLive = voice.media !== null;
          stopCapture();
          const socket = voice.socket;
          if (!socket) return;
          if (!wasLive) return; // talk() ends the stream itself once it sees the release
          if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ end: true }));
          voiceNote("Microphone off. Working out what you said…");
        }

        function voiceEvent(message) {
          let event; try { event = JSON.parse(message.data); } catch (_) { return; }
          const commands = (event.commands || []).join(", ");
          if (event.event === "listening" && event.mode === "audio" && voice.holding) voiceNote("● Microphone on: the TV is listening. Release when done.");
          if (event.event === "heard") {
            if (event.confident) voiceNote(`Heard “${event.heard}”: ${commands}…`);
            else { voiceNote(`Not sure: did you say “${event.heard}”? Send ${commands}?`); showGuess(true); }
          }
          if (event.event === "sent") { showGuess(false); voiceNote(event.live ? "Sent to the TV: it heard you." : `Sent: ${commands}.`); endVoice(); }
          if (event.event === "cancelled") { showGuess(false); voiceNote("Nothing was sent."); endVoice(); }
          if (event.event === "error") { showGuess(false); voiceNote(`${event.error}${event.hint ? " — " + event.hint : ""}`); endVoice(); }
        }

        function answerGuess(send) {
          showGuess(false);
          if (voice.socket && voice.socket.readyState === WebSocket.OPEN) voice.socket.send(JSON.stringify(send ? { send: true } : { cancel: true }));
          voiceNote(send ? "Sending…" : "Nothing was sent.");
        }
        """#
}
