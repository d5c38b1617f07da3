import Testing
import WebImage

/// Records what an ``AnimatedImagePlayer`` reports (frames with the clock's time when shown,
/// loop counts, errors) and lets tests wait for it.
final class PlayerRecorder: Sendable {
    struct Shown: Sendable, Equatable {
        let index: Int
        let at: Duration
        /// The frame index the pixels show (as ``SolidFrameDecoder`` colours them).
        let pixelsShow: Int
    }

    struct Log: Sendable {
        var shown: [Shown] = []
        var loops: [Int] = []
        var errors: [String] = []
        var peakHeldBytes = 0
    }

    let log = Watched(Log())

    /// Installs handlers on `player` that record into this recorder; `clock` stamps frames.
    init(_ player: AnimatedImagePlayer, clock: TestClock) {
        let log = self.log
        let animation = player.image.animation
        player.frameHandler = { index, frame in
            let held = animation?.heldBytes ?? 0
            log.update { log in
                log.shown.append(Shown(index: index, at: clock.now.offset,
                                       pixelsShow: SolidFrameDecoder.index(of: frame)))
                log.peakHeldBytes = max(log.peakHeldBytes, held)
            }
        }
        player.loopHandler = { loop in log.update { $0.loops.append(loop) } }
        player.errorHandler = { error in log.update { $0.errors.append(String(describing: error)) } }
    }

    var shownFrames: [Int] { log.value.shown.map(\.index) }
    var loops: [Int] { log.value.loops }
    var errors: [String] { log.value.errors }

    /// Waits until `count` frames have been shown.
    @discardableResult
    func waitForShown(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) frame(s) shown", sourceLocation: sourceLocation) { $0.shown.count >= count }
    }
}

extension TestClock {
    /// Wakes sleeps number `sleeps` (counted from 1 over the clock's life), each exactly at its
    /// deadline: waits until the sleep is asked for, then moves the clock by just what it asked.
    func wakeSleeps(_ sleeps: ClosedRange<Int>, sourceLocation: SourceLocation = #_sourceLocation) async {
        for number in sleeps {
            guard await waitForSleeps(number, sourceLocation: sourceLocation) else { return }
            advance(by: requestedSleeps[number - 1])
        }
    }
}

/// Seconds as a `Duration`, for expectations.
func seconds(_ value: Double) -> Duration { .seconds(value) }
