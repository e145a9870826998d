import Foundation
import PhotonCore

/// `photon voice TV FILE.wav`: a voice query, converted to the format the TV's adapter
/// declares (`TVAdapter.voiceFormat`) when the file is anything else.
enum VoiceCommand {
    static let spec = CommandSpec(
        ["voice"], summary: "stream a voice query from a WAV file", arguments: "TV FILE.wav", minimumArguments: 2,
        maximumArguments: 2,
        details:
            "Any PCM WAV (8/16/24/32-bit integer or 32-bit float, any rate, any channels) is mixed to mono and resampled to the rate the TV's brand takes (16-bit).",
        examples: ["photon voice living-room query.wav"], run: run)

    static func run(_ parsed: ParsedCommand, _ context: CLIContext) async throws -> Int32 {
        let path = parsed.arguments[1]
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PhotonError(.usage, "cannot read \(path)", hint: "give a WAV file")
        }
        guard data.count <= 32 << 20 else { throw PhotonError(.usage, "\(path) is over 32 MiB; a voice query is a few seconds") }
        let audio = try WAVFile.parse([UInt8](data))
        let device = try await SessionSupport.device(parsed.arguments[0], context: context)
        let adapter = try context.registry.adapter(id: device.brand)
        guard let format = adapter.descriptor.voiceFormat else {
            throw PhotonError.unsupported("\(adapter.displayName) TVs take no voice input", hint: "send the words as text: photon text TV \"…\"")
        }
        let pcm = audio.pcm16Mono(at: format.sampleRate)
        context.log.debug("voice: \(audio.sampleRate) Hz, \(audio.channels) channel(s) → \(pcm.count) bytes at \(format.sampleRate) Hz")
        _ = try await ControlCommands.send(.voice(pcm: pcm, sampleRate: format.sampleRate), parsed, context)
        context.emit(.object([("bytes", .int(pcm.count))]), text: nil)
        return 0
    }
}

/// A decoded WAV file: samples as Float in -1...1, per channel interleaved.
struct WAVFile {
    var sampleRate: Int
    var channels: Int
    var samples: [Float]

    static func parse(_ bytes: [UInt8]) throws -> WAVFile {
        func bad(_ why: String) -> PhotonError { PhotonError(.usage, "not a usable WAV file: \(why)", hint: "use a PCM .wav file") }
        func u32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw bad("no RIFF/WAVE header")
        }
        var offset = 12
        var format: (code: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            guard size >= 0, body + size <= bytes.count || id == "data" else { throw bad("chunk '\(id)' runs past the end") }
            if id == "fmt " {
                guard size >= 16 else { throw bad("short fmt chunk") }
                var code = u16(body)
                if code == 0xFFFE, size >= 40 { code = u16(body + 24) }  // WAVE_FORMAT_EXTENSIBLE
                format = (code, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let f = format else { throw bad("data before fmt") }
                guard f.channels >= 1, f.channels <= 16, f.rate >= 1000, f.rate <= 384_000 else { throw bad("unusual channel count or rate") }
                let end = min(body + size, bytes.count)
                let data = bytes[body..<end]
                return WAVFile(sampleRate: f.rate, channels: f.channels, samples: try decode(data, code: f.code, bits: f.bits))
            }
            offset = body + size + (size & 1)
        }
        throw bad("no data chunk")
    }

    static func decode(_ data: ArraySlice<UInt8>, code: Int, bits: Int) throws -> [Float] {
        let b = Array(data)
        switch (code, bits) {
        case (1, 8): return b.map { (Float($0) - 128) / 128 }
        case (1, 16):
            return stride(from: 0, to: b.count - 1, by: 2).map { Float(Int16(bitPattern: UInt16(b[$0]) | UInt16(b[$0 + 1]) << 8)) / 32768 }
        case (1, 24):
            return stride(from: 0, to: b.count - 2, by: 3).map {
                let v = Int32(bitPattern: UInt32(b[$0]) << 8 | UInt32(b[$0 + 1]) << 16 | UInt32(b[$0 + 2]) << 24) >> 8
                return Float(v) / 8_388_608
            }
        case (1, 32):
            return stride(from: 0, to: b.count - 3, by: 4).map {
                Float(Int32(bitPattern: UInt32(b[$0]) | UInt32(b[$0 + 1]) << 8 | UInt32(b[$0 + 2]) << 16 | UInt32(b[$0 + 3]) << 24)) / 2_147_483_648
            }
        case (3, 32):
            return stride(from: 0, to: b.count - 3, by: 4).map {
                Float(bitPattern: UInt32(b[$0]) | UInt32(b[$0 + 1]) << 8 | UInt32(b[$0 + 2]) << 16 | UInt32(b[$0 + 3]) << 24)
            }
        default:
            throw PhotonError(.usage, "unsupported WAV encoding (format \(code), \(bits) bits)", hint: "convert it to 16-bit PCM")
        }
    }

    /// Mixes to mono and resamples linearly to `rate`, as 16-bit little-endian bytes.
    func pcm16Mono(at rate: Int) -> [UInt8] {
        let frames = samples.count / channels
        var mono = [Float](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += samples[f * channels + c] }
            mono[f] = sum / Float(channels)
        }
        let outCount = frames == 0 ? 0 : max(1, Int((Double(frames) * Double(rate) / Double(sampleRate)).rounded()))
        var out: [UInt8] = []
        out.reserveCapacity(outCount * 2)
        let step = Double(sampleRate) / Double(rate)
        for i in 0..<outCount {
            let position = Double(i) * step
            let index = min(Int(position), frames - 1)
            let next = min(index + 1, frames - 1)
            let fraction = Float(position - Double(index))
            let value = mono[index] * (1 - fraction) + mono[next] * fraction
            let clamped = Int16(max(-32768, min(32767, (value * 32767).rounded())))
            out.append(UInt8(truncatingIfNeeded: clamped))
            out.append(UInt8(truncatingIfNeeded: clamped >> 8))
        }
        return out
    }
}
