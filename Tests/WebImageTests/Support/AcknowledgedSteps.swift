import Foundation

/// A body the test origin sends in pieces, each next piece only once the client has reported the
/// bytes before it through its progress handler: every piece arrives on its own, on a fast machine
/// or a starved one, so tests of progress and partial images need no pacing by the clock.
struct AcknowledgedSteps: Sendable {
    let steps: [BodyStep]

    /// Pauses after each of `offsets` bytes (ascending).
    init(at offsets: [Int]) {
        steps = offsets.map { BodyStep(through: $0, gate: TestGate()) }
    }

    /// `count` bytes in `pieces` pieces of about the same size.
    init(splitting count: Int, into pieces: Int) {
        let size = max(1, count / pieces)
        self.init(at: Array(stride(from: size, to: count, by: size)))
    }

    /// The body mode for the route.
    var mode: TestOriginRoute.BodyMode { .stepped(steps) }

    /// Lets the origin go on past every step the client has received (call from its progress handler).
    func acknowledge(_ received: Int64) {
        for step in steps where received >= Int64(step.through) { step.gate.open() }
    }

    /// Lets the origin send everything that is left.
    func openAll() {
        for step in steps { step.gate.open() }
    }
}
