import Dispatch
import Foundation

/// SIGTERM and SIGINT as the server counts them: the first begins the graceful shutdown (the
/// service group's own handling), the second cuts the drain short. Watching begins when it is
/// made, so no signal sent once the server listens is missed.
final class StopSignals: Sendable {
    private let stream: AsyncStream<Int>
    private let watch: SignalSources

    init() {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        self.stream = stream
        watch = SignalSources([SIGTERM, SIGINT]) { count in continuation.yield(count) }
    }

    deinit { watch.cancel() }

    /// Returns true once `count` signals have come, false if the task is cancelled first.
    func wait(for count: Int) async -> Bool {
        var seen = 0
        for await signals in stream {
            seen += signals
            if seen >= count { return true }
        }
        return false
    }
}

/// Dispatch signal sources for some signals (ignored by default, so they no longer end the
/// process), calling back with the number of signals delivered since the last call.
/// `@unchecked Sendable` with no lock: `sources` is set once in `init` and never mutated, and a
/// DispatchSource's `cancel()` is safe from any thread.
private final class SignalSources: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32], onSignals: @escaping @Sendable (Int) -> Void) {
        let queue = DispatchQueue(label: "webimage.serve.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The handler holds its source until the source is cancelled (``cancel()``).
            source.setEventHandler { onSignals(Int(source.data)) }
            source.resume()
            return source
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
