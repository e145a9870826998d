import Foundation
import Glibc
import PhotonCore
import PhotonKit
import PhotonVoice

/// `photon voice TV [FILE.wav]`: speak to the TV. From the microphone (until Enter, 1.5 s
/// of silence or 10 s) or a WAV file. A TV that takes audio (Android TV) gets it — from
/// the microphone while the words are still being spoken; for every other TV the words
/// are recognised on this machine (PocketSphinx) and sent as a search, typed, or turned
/// into "open APP" / "channel N". Audio and words stay in memory and are never logged.
enum VoiceCommand {
    static let spec = CommandSpec(
        ["voice"], summary: "speak to the TV: from the microphone, or a WAV file", arguments: "TV [FILE.wav]", minimumArguments: 1,
        maximumArguments: 2,
        options: [
            OptionSpec(
                "to", value: "search|text",
                help: "recognise the words here and send them to the TV's search or type them (default: search where the TV has one)"),
            OptionSpec("dry-run", help: "recognise the words and print them; send nothing"),
            OptionSpec("phrases", value: "FILE", help: "phrases to listen for, one a line (with voice-phrases.txt in the config folder)"),
        ],
        details: """
            Without a file, records from the default microphone (PulseAudio or PipeWire, else ALSA) until Enter, \
            1.5 s of silence after speech, or 10 s. A TV whose brand takes voice audio hears it itself, while it is spoken. For other \
            TVs (and with --to or --dry-run) the words are recognised on this machine with PocketSphinx: \
            "open netflix" launches, "search for …" and other words search (or are typed), "channel one two" tunes. \
            Recognition listens best for app names, command words and your phrases (--phrases, voice-phrases.txt); \
            anything else is a guess it asks about before sending. Audio and words are never written or logged.
            Any PCM WAV (8/16/24/32-bit integer or 32-bit float, any rate, any channels) is accepted.
            """,
        examples: ["photon voice living-room", "photon voice den --dry-run", "photon voice bedroom query.wav --to text"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let target = try parsed.value("to").map { value -> VoiceRequest.Target in
            guard let target = VoiceRequest.Target(rawValue: value.lowercased()) else {
                throw PhotonError(.usage, "--to takes search or text, not '\(Redaction.sanitize(value))'")
            }
            return target
        }
        let file = parsed.arguments.count > 1 ? try readWAV(parsed.arguments[1]) : nil
        let device = try await SessionSupport.device(parsed.arguments[0], context: context)
        let adapter = try context.registry.adapter(id: device.brand)
        let recognise = adapter.descriptor.voiceFormat == nil || target != nil || parsed.flag("dry-run")
        if !recognise, let format = adapter.descriptor.voiceFormat {
            return try await sendAudio(file: file, rate: format.sampleRate, parsed, context)
        }
        return try await recogniseAndSend(
            file: file, device: device, target: target, phrases: try phrases(parsed, context), parsed, context)
    }

    // MARK: audio to a TV that takes it

    private static func sendAudio(file: WAVFile?, rate: Int, _ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        if let file {
            let pcm = file.pcm16Mono(at: rate)
            context.log.debug("voice: \(file.sampleRate) Hz, \(file.channels) channel(s) → \(pcm.count) bytes at \(rate) Hz")
            _ = try await ControlCommands.send(.voice(pcm: pcm, sampleRate: rate), parsed, context)
            context.emit(.object([("bytes", .int(pcm.count))]), text: "sent \(seconds(pcm.count, rate)) of audio to the TV")
            return 0
        }
        let recording = try MicrophoneRecording.start(sampleRate: rate)
        let meter = RecordingMeter(context: context, device: recording.deviceName)
        let enter = EnterWatcher.start(if: context.terminal.isInteractive) { recording.stop() }
        // Nothing goes to the TV before speech is heard; then the last half second before
        // it (the start of the first word) and everything after, as it is recorded.
        var preRoll: [[Int16]] = []
        var live: LiveAudio?
        var sending: Task<Void, any Error>?
        var bytes = 0
        do {
            for try await block in recording.blocks {
                meter.show(block)
                if live == nil, block.verdict == .speaking || (block.verdict.isEnded && block.verdict != .ended(.noSpeech)) {
                    let audio = LiveAudio(sampleRate: rate)
                    live = audio
                    sending = Task {
                        do { _ = try await ControlCommands.send(.liveVoice(audio), parsed, context) } catch {
                            recording.stop()
                            throw error
                        }
                    }
                    for earlier in preRoll { audio.append(PCM16.bytes(earlier)) }
                    bytes += preRoll.reduce(0) { $0 + $1.count * 2 }
                    preRoll = []
                }
                if let live {
                    live.append(PCM16.bytes(block.samples))
                    bytes += block.samples.count * 2
                } else {
                    preRoll.append(block.samples)
                    if preRoll.count > 25 { preRoll.removeFirst() }
                }
            }
        } catch {
            live?.finish()
            meter.end()
            enter.finish()
            throw error
        }
        live?.finish()
        meter.end()
        enter.finish()
        guard let sending else { throw noSpeech }
        try await sending.value
        context.emit(.object([("bytes", .int(bytes)), ("live", .bool(true))]), text: "the TV heard \(seconds(bytes, rate)) of audio")
        return 0
    }

    // MARK: recognition here

    private static func recogniseAndSend(
        file: WAVFile?, device: DeviceRecord, target: VoiceRequest.Target?, phrases: [String], _ parsed: ParsedCommand,
        _ context: CLIContext
    ) async throws -> Int32 {
        let control = try await context.control()
        // The TV's own app names join the vocabulary, where it lists them (bounded: a
        // TV that does not answer must not hold the recording up).
        let tv = parsed.arguments[0]
        let installed: [TVApp] =
            device.capabilities.contains(Capability.appList.rawValue)
            ? ((try? await waitAtMost(.seconds(3)) { try await control.installedApps(tv) }) ?? nil) ?? [] : []
        let vocabulary = VoiceVocabulary.standard(installed: installed, phrases: phrases)
        let loading = Task { try SpeechRecognizer(vocabulary: vocabulary) }
        let samples: [Int16]
        if let file {
            samples = file.samples16Mono(at: SpeechRecognizer.sampleRate)
        } else {
            samples = try await record(context)
        }
        let recognizer = try await loading.value
        if !recognizer.skippedPhrases.isEmpty {
            context.log.debug("voice: \(recognizer.skippedPhrases.count) phrase(s) left out: a word the dictionary cannot pronounce")
        }
        let canSearch = device.capabilities.contains(Capability.search.rawValue)
        let understood = try VoiceUnderstanding.understand(
            samples, with: recognizer, target: target ?? .search, canSearch: canSearch, installed: installed)
        let heard = understood.recognition
        context.log.debug("voice: \(samples.count) samples → \(heard.text.count) characters, \(heard.model.rawValue), confidence \(heard.confidence)")
        let sure = understood.isConfident
        let summary = understood.summary
        if parsed.flag("dry-run") {
            context.emit(understood.json(sent: false), text: "heard: \(heard.text)\(sure ? "" : " (a guess)")\nwould send: \(summary)")
            return 0
        }
        if !sure {
            guard context.terminal.isInteractive, !context.json else {
                throw PhotonError(
                    .notFound, "not sure what was said (the general model guessed \"\(heard.text)\"); nothing was sent",
                    hint: "say it again, or add the phrase to voice-phrases.txt in the config folder (or give --phrases FILE)")
            }
            context.terminal.writeError("heard (a guess): \(heard.text)\nSend \(summary)? [y/N] ")
            let reply = context.terminal.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            guard reply == "y" || reply == "yes" else {
                context.note("nothing was sent")
                return 1
            }
        } else if !context.json {
            context.note("heard: \(heard.text)")
        }
        // The words go as words: the router and the TV's session turn them into the same
        // commands on every door (the daemon's API and MQTT take `{"voice":{"text":…}}`).
        _ = try await ControlCommands.send([understood.spokenCommand], delay: 0, to: tv, context)
        context.emit(understood.json(sent: true), text: "sent: \(summary)")
        return 0
    }

    /// Records from the microphone at the recogniser's rate, until the recording ends.
    private static func record(_ context: CLIContext) async throws -> [Int16] {
        let recording = try MicrophoneRecording.start(sampleRate: SpeechRecognizer.sampleRate)
        let meter = RecordingMeter(context: context, device: recording.deviceName)
        let enter = EnterWatcher.start(if: context.terminal.isInteractive) { recording.stop() }
        defer {
            meter.end()
            enter.finish()
        }
        var samples: [Int16] = []
        var ending: SpeechEndpointer.Verdict = .waitingForSpeech
        for try await block in recording.blocks {
            meter.show(block)
            samples += block.samples
            ending = block.verdict
        }
        if ending == .ended(.noSpeech) { throw noSpeech }
        return samples
    }

    /// `2.4 s`: the length of 16-bit mono audio.
    private static func seconds(_ bytes: Int, _ rate: Int) -> String {
        String(format: "%.1f s", Double(bytes) / Double(max(1, rate * 2)))
    }

    static let noSpeech = PhotonError(
        .timeout, "no speech was heard; nothing was sent",
        hint: "check the microphone (`pactl list short sources`, its level and mute) and speak after \"speak now\"")

    private static func readWAV(_ path: String) throws -> WAVFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotonError(.usage, "cannot read \(path)", hint: "give a WAV file")
        }
        guard data.count <= 32 << 20 else { throw PhotonError(.usage, "\(path) is over 32 MiB; a voice query is a few seconds") }
        return try WAVFile.parse([UInt8](data))
    }

    /// `--phrases FILE` and the config folder's voice-phrases.txt.
    private static func phrases(_ parsed: ParsedCommand, _ context: CLIContext) throws -> [String] {
        try VoicePhrases.load(configDirectory: context.paths.configDirectory, extraFile: parsed.value("phrases"))
    }
}
