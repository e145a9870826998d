import Foundation

/// A decoded WAV file: samples as Float in -1...1, per channel interleaved. Voice queries
/// come from WAV files (any common rate, width and channel count) as well as microphones.
public struct WAVFile: Sendable {
    public var sampleRate: Int
    public var channels: Int
    public var samples: [Float]

    public init(sampleRate: Int, channels: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Parses a RIFF/WAVE file (a user's file: every malformed one is a `usage` error).
    public static func parse(_ bytes: [UInt8]) throws -> WAVFile {
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
    public func pcm16Mono(at rate: Int) -> [UInt8] {
        let frames = samples.count / channels
        var mono = [Float](repeating: 0, count: frames)
        for f in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += samples[f * channels + c] }
            mono[f] = sum / Float(channels)
        }
        return PCM16.bytes(PCM16.samples(Resampler.resample(mono, from: sampleRate, to: rate)))
    }
}

extension WAVFile {
    /// Mono 16-bit samples at `rate` (what a recogniser takes).
    public func samples16Mono(at rate: Int) -> [Int16] { PCM16.samples(pcm16Mono(at: rate)) }

    /// A 16-bit mono WAV file of `samples` (for recordings kept by tests and tools).
    public static func encode(samples: [Int16], sampleRate: Int) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
        func le16(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(v).littleEndian) { Array($0) } }
        let data = PCM16.bytes(samples)
        return Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(sampleRate)
            + le32(sampleRate * 2) + le16(2) + le16(16) + Array("data".utf8) + le32(data.count) + data
    }
}

/// 16-bit little-endian PCM as bytes and samples.
public enum PCM16 {
    public static func bytes(_ samples: [Int16]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(samples.count * 2)
        for s in samples {
            out.append(UInt8(truncatingIfNeeded: s))
            out.append(UInt8(truncatingIfNeeded: s >> 8))
        }
        return out
    }

    public static func samples(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// Samples from -1…1 floats, rounded and clipped.
    public static func samples(_ floats: [Float]) -> [Int16] {
        floats.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))) }
    }

    /// Samples as -1…1 floats.
    public static func floats(_ samples: [Int16]) -> [Float] { samples.map { Float($0) / 32768 } }
}
