import CAudioCapture
import Foundation
import PhotonCore

/// A microphone opened for 16-bit mono capture at one rate. Reads block until the audio
/// is there, so a recording runs them on a thread of its own.
protocol AudioCapture: AnyObject, Sendable {
    /// What was opened, for people ("PulseAudio (default source)", "ALSA default").
    var name: String { get }
    /// The next `count` samples.
    func read(_ count: Int) throws -> [Int16]
    func close()
}

/// Opens the default microphone: PulseAudio (PipeWire answers as PulseAudio too), and ALSA
/// when no sound server runs. `PULSE_SERVER` and `PULSE_SOURCE` choose another server or
/// source, as for every PulseAudio client.
public enum Microphone {
    static func open(rate: Int) throws -> any AudioCapture {
        let pulseProblem: PhotonError
        do {
            return try PulseCapture(rate: rate)
        } catch let error as PhotonError where error.code == .unreachable {
            pulseProblem = error
        }
        do {
            return try ALSACapture(rate: rate)
        } catch let error as PhotonError where error.code == .unsupported && error.hint == ALSACapture.noDeviceHint {
            throw PhotonError.unsupported(
                "no microphone to record from: \(pulseProblem.message), and \(error.message)",
                hint: "connect a microphone (or start PulseAudio/PipeWire), or give a recording: photon voice TV query.wav")
        }
    }
}

/// Capture through libpulse-simple.
final class PulseCapture: AudioCapture, @unchecked Sendable {
    typealias New =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, pa_stream_direction_t, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafePointer<pa_sample_spec>?, UnsafePointer<pa_channel_map>?, UnsafePointer<pa_buffer_attr>?, UnsafeMutablePointer<Int32>?
        ) -> OpaquePointer?
    typealias Read = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<Int32>?) -> Int32
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias ErrorText = @convention(c) (Int32) -> UnsafePointer<CChar>?

    let name: String
    private let stream: OpaquePointer
    private let readFunction: Read
    private let freeFunction: Free
    private let errorText: ErrorText
    private let closed = Locked(false)

    init(rate: Int) throws {
        let library = try SharedLibrary([PHOTON_LIB_PULSE_SIMPLE], package: "libpulse0", purpose: "recording from PulseAudio")
        let new: New = try library.function("pa_simple_new")
        readFunction = try library.function("pa_simple_read")
        freeFunction = try library.function("pa_simple_free")
        errorText = try library.function("pa_strerror")
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(rate), channels: 1)
        // 20 ms fragments: the audio arrives as it is spoken, not in PulseAudio's default
        // two-second pieces.
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32(rate / 50 * 2))
        var error: Int32 = 0
        let source = ProcessInfo.processInfo.environment["PULSE_SOURCE"]
        guard let stream = new(nil, "Photon", PA_STREAM_RECORD, nil, "voice query", &spec, nil, &attributes, &error) else {
            let text = errorText(error).map { String(cString: $0) } ?? "error \(error)"
            switch UInt32(error) {
            case PA_ERR_ACCESS.rawValue:
                throw PhotonError(
                    .authenticationRefused, "PulseAudio refused access to the microphone (\(text))",
                    hint: "allow Photon to use the microphone in your desktop's privacy settings, or run it as the logged-in user")
            case PA_ERR_NOENTITY.rawValue:
                throw PhotonError.unsupported(
                    "PulseAudio has no microphone\(source.map { " named \($0)" } ?? "") (\(text))",
                    hint: "connect a microphone, or list sources with `pactl list short sources` and set PULSE_SOURCE")
            default:
                throw PhotonError(.unreachable, "PulseAudio is not reachable (\(text))")
            }
        }
        self.stream = stream
        name = "PulseAudio (\(source ?? "default source"))"
    }

    func read(_ count: Int) throws -> [Int16] {
        var samples = [Int16](repeating: 0, count: count)
        var error: Int32 = 0
        let result = samples.withUnsafeMutableBytes { readFunction(stream, $0.baseAddress, $0.count, &error) }
        guard result >= 0 else {
            throw PhotonError(.connectionClosed, "recording stopped: \(errorText(error).map { String(cString: $0) } ?? "error \(error)")")
        }
        return samples
    }

    func close() {
        let first = closed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        freeFunction(stream)
    }

    deinit { close() }
}

/// Capture from ALSA's default device, where no sound server runs.
final class ALSACapture: AudioCapture, @unchecked Sendable {
    typealias Open = @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, snd_pcm_stream_t, Int32) -> Int32
    typealias SetParameters = @convention(c) (OpaquePointer?, snd_pcm_format_t, snd_pcm_access_t, UInt32, UInt32, Int32, UInt32) -> Int32
    typealias ReadFrames = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UInt) -> Int
    typealias Recover = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    typealias Close = @convention(c) (OpaquePointer?) -> Int32
    typealias ErrorText = @convention(c) (Int32) -> UnsafePointer<CChar>?

    static let noDeviceHint = "connect a microphone"
    let name = "ALSA default"
    private let pcm: OpaquePointer
    private let readFrames: ReadFrames
    private let recover: Recover
    private let closeFunction: Close
    private let errorText: ErrorText
    private let closed = Locked(false)

    init(rate: Int) throws {
        let library = try SharedLibrary([PHOTON_LIB_ASOUND], package: "libasound2", purpose: "recording from ALSA")
        // Photon says what is wrong; ALSA's own lines on stderr would come first.
        photon_alsa_silence(library.address("snd_lib_error_set_handler"))
        let open: Open = try library.function("snd_pcm_open")
        let setParameters: SetParameters = try library.function("snd_pcm_set_params")
        readFrames = try library.function("snd_pcm_readi")
        recover = try library.function("snd_pcm_recover")
        closeFunction = try library.function("snd_pcm_close")
        errorText = try library.function("snd_strerror")
        var handle: OpaquePointer?
        let opened = open(&handle, "default", SND_PCM_STREAM_CAPTURE, 0)
        guard opened >= 0, let handle else {
            let text = errorText(opened).map { String(cString: $0) } ?? "error \(opened)"
            if -opened == EACCES || -opened == EPERM {
                throw PhotonError(
                    .authenticationRefused, "ALSA refused access to the microphone (\(text))",
                    hint: "add yourself to the audio group: sudo adduser $USER audio (then log in again)")
            }
            throw PhotonError.unsupported("ALSA has no capture device (\(text))", hint: Self.noDeviceHint)
        }
        let set = setParameters(handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(rate), 1, 100_000)
        guard set >= 0 else {
            _ = closeFunction(handle)
            throw PhotonError.unsupported(
                "ALSA's default device cannot record 16-bit mono at \(rate) Hz (\(errorText(set).map { String(cString: $0) } ?? "\(set)"))",
                hint: Self.noDeviceHint)
        }
        pcm = handle
    }

    func read(_ count: Int) throws -> [Int16] {
        var samples = [Int16](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = samples.withUnsafeMutableBufferPointer { buffer in
                readFrames(pcm, UnsafeMutableRawPointer(buffer.baseAddress! + filled), UInt(count - filled))
            }
            if result >= 0 {
                filled += result
            } else if recover(pcm, Int32(result), 1) < 0 {
                throw PhotonError(
                    .connectionClosed, "recording stopped: \(errorText(Int32(result)).map { String(cString: $0) } ?? "error \(result)")")
            }
        }
        return samples
    }

    func close() {
        let first = closed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        _ = closeFunction(pcm)
    }

    deinit { close() }
}
