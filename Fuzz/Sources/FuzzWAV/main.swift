import PhotonCore

// WAV files given to `photon voice` (anything a user points it at), then mixed to mono and
// resampled to the rates voice uses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let wav = try? WAVFile.parse(bytes) else { return 0 }
    precondition(wav.channels >= 1 && wav.sampleRate >= 1000, "a parsed file has channels and a rate")
    for rate in [8000, 16000] {
        let pcm = wav.pcm16Mono(at: rate)
        precondition(pcm.count % 2 == 0, "16-bit samples")
        let frames = wav.samples.count / wav.channels
        let expected = frames == 0 ? 0 : max(1, Int((Double(frames) * Double(rate) / Double(wav.sampleRate)).rounded()))
        precondition(pcm.count == expected * 2, "the resampled length follows the rates")
    }
    return 0
}
