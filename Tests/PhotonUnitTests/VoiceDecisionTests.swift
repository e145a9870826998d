import PhotonVoice
import Testing

/// The "sure or ask" rule on its own (`SpeechRecognizer.decide`), on the decodings'
/// words and the two measures of fit, with the figures of utterances the calibration
/// found sent wrong under the margin-only rule.
@Suite struct VoiceDecisionTests {
    func decide(_ grammar: String, _ general: String, margin: Double, loop: Double) -> Recognition {
        SpeechRecognizer.decide(grammar: grammar, general: general, margin: margin, phoneLoopDeficit: loop)
    }

    @Test func aGrammarPathThatFitsBothWaysIsSure() {
        let heard = decide("search for the expanse", "the thirty plan", margin: 22.5, loop: -3.2)
        #expect(heard.isConfident)
        #expect(heard.text == "search for the expanse")
        #expect(heard.model == .grammar)
        #expect(heard.confidence >= 0.5)
    }

    @Test func bothDecodingsHearingTheSameWordsIsSureWhateverTheScores() {
        #expect(decide("show me something funny", "show me something funny", margin: 0.4, loop: 7.1).isConfident)
    }

    /// The newcomer's "purple elephant dancing" (espeak-ng en-us+klatt) went to the Roku as
    /// a search for "amazon" with confidence 0.51: its margin (5.8) is under the threshold
    /// and the phone loop fits the audio far better than the grammar's path (4.6).
    @Test func speechOutsideTheGrammarThatFallsShortOfThePhoneLoopIsAsked() {
        let heard = decide("search for amazon", "the soul and is a bad seed", margin: 9.5, loop: 4.6)
        #expect(!heard.isConfident)
        #expect(heard.confidence < 0.5)
        let under = decide("search for amazon", "the soul and is a bad seed", margin: 5.8, loop: 1.0)
        #expect(!under.isConfident)
        #expect(under.confidence < 0.5)
    }

    /// "funny dog videos" (en-us-nyc) was forced onto the lone app name "kodi" with a wide
    /// margin: a lone word is the grammar's catch-all, never sure unless both heard it.
    @Test func aLoneWordIsNeverSureUnlessBothDecodingsHeardIt() {
        #expect(!decide("kodi", "on the really old", margin: 17.7, loop: 0.6).isConfident)
        #expect(!decide("seven", "some", margin: 30, loop: -5).isConfident)
        #expect(decide("netflix", "netflix", margin: 1, loop: 3).isConfident)
    }

    @Test func digitsTheGeneralModelDidNotHearAreNeitherSureNorOffered() {
        let heard = decide("three eight two", "breaking bad", margin: 12, loop: 1)
        #expect(!heard.isConfident)
        #expect(heard.text == "breaking bad")
        #expect(heard.model == .general)
        #expect(decide("one two three four", "one of those threes all", margin: 12, loop: 1).isConfident)
    }

    /// An unsure grammar path that still fits better than the general model is the guess
    /// offered (its slip is usually one word); one that fits worse gives way.
    @Test func theGuessIsTheGrammarsWordsWhereTheyFitBetter() {
        let near = decide("open hulu", "and they", margin: 9.2, loop: 3.0)
        #expect(!near.isConfident)
        #expect(near.text == "open hulu")
        let far = decide("open hulu", "the weather tomorrow", margin: -2, loop: 9)
        #expect(far.text == "the weather tomorrow")
        #expect(far.model == .general)
        #expect(decide("", "something", margin: 0, loop: .infinity).text == "something")
    }

    @Test func confidenceIsAtLeastHalfExactlyWhenSure() {
        for margin in stride(from: -5.0, through: 30, by: 2.5) {
            for loop in stride(from: -10.0, through: 12, by: 1.5) {
                let heard = decide("open netflix", "oh and then", margin: margin, loop: loop)
                #expect(heard.isConfident == (heard.confidence >= 0.5), "margin \(margin), loop \(loop): \(heard.confidence)")
                #expect((0...1).contains(heard.confidence))
            }
        }
    }
}
