import Foundation
import Synchronization

/// A one-line progress bar on stderr (`[#####-----] 12/40  3.1 MiB`), drawn only when stderr is
/// a terminal, so scripts and pipes see clean output. Safe to update from any thread.
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var failed = 0
        var bytes = 0
        var lastDraw = ContinuousClock.now - .seconds(1)
        var finished = false
    }

    private let total: Int
    private let label: String
    private let enabled: Bool
    private let state = Mutex(State())

    /// A bar for `total` items; `enabled` defaults to "stderr is a terminal".
    init(total: Int, label: String = "", enabled: Bool = isatty(2) == 1) {
        self.total = max(total, 0)
        self.label = label
        self.enabled = enabled
    }

    /// Records one finished item (and the bytes it brought) and redraws.
    func advance(bytes: Int = 0, failed: Bool = false) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.done += 1
            state.bytes += bytes
            if failed { state.failed += 1 }
            // Redraw at most 20 times a second, but always for the last item.
            let now = ContinuousClock.now
            guard state.done >= total || now - state.lastDraw >= .milliseconds(50) else { return nil }
            state.lastDraw = now
            return render(state)
        }
        if let line { write("\r" + line) }
    }

    /// Ends the bar's line so later output starts on a fresh one.
    func finish() {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            return render(state)
        }
        if let line { write("\r" + line + "\n") }
    }

    private func render(_ state: State) -> String {
        let width = 30
        let filled = total > 0 ? min(width, state.done * width / total) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var text = (label.isEmpty ? "" : label + " ") + "[\(bar)] \(state.done)/\(total)"
        if state.bytes > 0 { text += "  " + ByteCountText.format(state.bytes) }
        if state.failed > 0 { text += "  \(state.failed) failed" }
        return text + "\u{1B}[K"
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
