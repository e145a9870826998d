import Foundation

/// Sample-rate conversion for voice. Going down (a 44.1 kHz file to a recogniser's 16 kHz,
/// or to Android TV's 8 kHz) it low-pass filters first with a windowed sinc, since what
/// lies above the new Nyquist frequency would otherwise fold back as noise in the speech
/// band (plain interpolation cost the recogniser about a tenth of its words). Going up,
/// linear interpolation is enough for speech.
///
/// It converts a stream as it arrives (the web remote's microphone, relayed live to a TV)
/// and gives exactly what converting the whole recording at once gives: an output sample is
/// made once every input sample its filter reaches has arrived, and `finish()` makes the
/// rest at the end's edge.
public struct Resampler: Sendable {
    /// Taps on each side of the filter's centre.
    static let halfWidth = 16

    public let sourceRate: Int
    public let rate: Int
    /// Input samples from the absolute index `base` on: what later outputs still reach.
    private var pending: [Float] = []
    private var base = 0
    private var received = 0
    private var produced = 0
    private let step: Double
    private let cutoff: Double
    private let reach: Double

    public init(from sourceRate: Int, to rate: Int) {
        self.sourceRate = max(1, sourceRate)
        self.rate = max(1, rate)
        step = Double(self.sourceRate) / Double(self.rate)
        // Cut-off at 90 % of the new Nyquist frequency, in cycles per input sample.
        cutoff = 0.45 * Double(self.rate) / Double(self.sourceRate)
        reach = Double(Self.halfWidth) / (2 * cutoff)
    }

    /// The whole of `input` converted at once.
    public static func resample(_ input: [Float], from sourceRate: Int, to rate: Int) -> [Float] {
        guard !input.isEmpty, sourceRate > 0, rate > 0 else { return [] }
        if sourceRate == rate { return input }
        var resampler = Resampler(from: sourceRate, to: rate)
        return resampler.push(input) + resampler.finish()
    }

    /// Adds input; returns the output samples it completes.
    public mutating func push(_ input: [Float]) -> [Float] {
        if sourceRate == rate {
            received += input.count
            produced += input.count
            return input
        }
        pending += input
        received += input.count
        return emit(final: false)
    }

    /// The input ended: the remaining output, as many samples in all as the input's length
    /// at the new rate.
    public mutating func finish() -> [Float] {
        if sourceRate == rate || received == 0 { return [] }
        return emit(final: true)
    }

    private mutating func emit(final: Bool) -> [Float] {
        var out: [Float] = []
        let total = max(1, Int((Double(received) * Double(rate) / Double(sourceRate)).rounded()))
        let upsampling = rate > sourceRate
        while true {
            let centre = Double(produced) * step
            if final {
                guard produced < total else { break }
            } else {
                // Not yet: the filter reaches input that has not arrived.
                let needed = upsampling ? Int(centre) + 1 : Int((centre + reach).rounded(.down))
                guard needed <= received - 1 else { break }
            }
            out.append(upsampling ? interpolated(at: centre) : filtered(at: centre))
            produced += 1
        }
        // Drop the input no later output reaches.
        let nextCentre = Double(produced) * step
        let keepFrom = upsampling ? Int(nextCentre) : max(0, Int((nextCentre - reach).rounded(.up)))
        if keepFrom > base {
            let drop = min(keepFrom - base, pending.count)
            pending.removeFirst(drop)
            base += drop
        }
        return out
    }

    private func sample(_ index: Int) -> Float { pending[index - base] }

    private func interpolated(at position: Double) -> Float {
        let index = min(Int(position), received - 1)
        let next = min(index + 1, received - 1)
        let fraction = Float(position - Double(index))
        return sample(index) * (1 - fraction) + sample(next) * fraction
    }

    private func filtered(at centre: Double) -> Float {
        let first = max(0, Int((centre - reach).rounded(.up)))
        let last = min(received - 1, Int((centre + reach).rounded(.down)))
        guard first <= last else { return 0 }
        var sum = 0.0
        var weights = 0.0
        for k in first...last {
            let distance = Double(k) - centre
            let x = 2 * cutoff * distance
            let sinc = x == 0 ? 1 : sin(.pi * x) / (.pi * x)
            // Blackman window over the filter's reach.
            let w = 0.42 + 0.5 * cos(.pi * distance / reach) + 0.08 * cos(2 * .pi * distance / reach)
            let weight = sinc * w
            sum += Double(sample(k)) * weight
            weights += weight
        }
        return Float(weights == 0 ? 0 : sum / weights)
    }
}
