import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// An object whose release a test can await. Put in a load's context (``WebImageContext/probed(_:)``),
/// only that load's machinery holds it, so its release proves every step of the load has run and
/// let go: nothing the load could still do is pending. That is how a test shows "nothing more
/// happened" (no late store, no late callback) without waiting a while.
final class ReleaseProbe: Sendable {
    private let onRelease: @Sendable () -> Void

    private init(_ onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }

    deinit { onRelease() }

    /// The userInfo key a probe is stored under.
    static let key = "test.release-probe"

    /// A probe that opens `gate` when released (keep only the gate).
    static func reporting(to gate: TestGate) -> ReleaseProbe { ReleaseProbe { gate.open() } }

    /// A probe that counts its release in `counter` (keep only the counter).
    static func counting(in counter: Counter) -> ReleaseProbe { ReleaseProbe { counter.increment() } }
}

extension LoadRecorder {
    /// This recorder's completion, held together with a probe that counts its release in
    /// `released`: once a loader has let go of it, no callback of that load can still come.
    func completion(releasing released: Counter) -> ImageLoadCompletion {
        let record = completion
        return { [probe = ReleaseProbe.counting(in: released)] result in
            withExtendedLifetime(probe) { record(result) }
        }
    }
}

extension WebImageContext {
    /// This context carrying a probe that opens `released` once the load lets go of the context.
    /// Pass the result straight to the load: a copy the test keeps would keep the probe alive.
    func probed(_ released: TestGate) -> WebImageContext {
        var context = self
        context.userInfo[ReleaseProbe.key] = ReleaseProbe.reporting(to: released)
        return context
    }
}
