/// The order an ``AnimatedImagePlayer`` shows frames in (SDWebImage's `SDAnimatedImagePlaybackMode`).
///
/// One loop of `n` frames is: normal `0…n-1`; reverse `n-1…0`; bounce `0…n-1…1`; reversed bounce
/// `n-1…0…n-2`. Loops follow one another without repeating a frame, and when the last loop of a
/// bounce ends the player shows the loop's first frame once more, so a bounce comes to rest where
/// it began.
public enum AnimatedImagePlaybackMode: String, Sendable, CaseIterable {
    /// First frame to last.
    case normal
    /// Last frame to first.
    case reverse
    /// First to last and back again.
    case bounce
    /// Last to first and back again.
    case reversedBounce = "reversed-bounce"

    /// How many steps one loop of `frameCount` frames takes.
    func stepsPerLoop(frameCount: Int) -> Int {
        switch self {
        case .normal, .reverse: return frameCount
        case .bounce, .reversedBounce: return frameCount > 1 ? 2 * frameCount - 2 : 1
        }
    }

    /// How many steps the final loop takes: a bounce adds the closing frame.
    func stepsInFinalLoop(frameCount: Int) -> Int {
        switch self {
        case .normal, .reverse: return frameCount
        case .bounce, .reversedBounce: return frameCount > 1 ? 2 * frameCount - 1 : 1
        }
    }

    /// The frame shown at `step` of a loop (a step past the loop's end is the closing frame).
    func frameIndex(atStep step: Int, frameCount: Int) -> Int {
        let last = frameCount - 1
        switch self {
        case .normal: return step
        case .reverse: return last - step
        case .bounce: return step <= last ? step : 2 * last - step
        case .reversedBounce: return last - (step <= last ? step : 2 * last - step)
        }
    }

    /// The first step of a loop that shows frame `index`.
    func firstStep(showing index: Int, frameCount: Int) -> Int {
        switch self {
        case .normal, .bounce: return index
        case .reverse, .reversedBounce: return frameCount - 1 - index
        }
    }
}
