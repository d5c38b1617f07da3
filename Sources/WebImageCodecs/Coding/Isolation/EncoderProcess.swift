import Foundation

/// An executable that encodes in a process of its own, so an encode that a library runs in one
/// call (an AVIF encode: one libaom call per image) can still be stopped: when the thread's
/// ``WorkCancellation`` is cancelled, the child is killed and the encode ends within a few
/// milliseconds instead of running to its end.
///
/// The executable must answer ``workerCommand`` by calling ``runWorker(_:)`` with the arguments
/// after it, as `webimage` does; `webimage serve` uses its own executable. Set it on
/// ``EncodeOptions/encoderProcess``.
public struct EncoderProcess: Sendable, Hashable {
    /// The subcommand that makes an executable an encoder process.
    public static let workerCommand = "encode-worker"

    /// The path of the executable.
    public var executable: String
    /// The smallest image, in pixels, encoded in a child; smaller ones are encoded in this process,
    /// where starting a child would cost more than the encode (default 2,000,000).
    public var minimumPixels: Int

    /// An encoder process running `executable`.
    public init(executable: String, minimumPixels: Int = 2_000_000) {
        self.executable = executable
        self.minimumPixels = max(0, minimumPixels)
    }

    /// This process's own executable (`/proc/self/exe`), or nil where it cannot be found.
    public static var ownExecutable: EncoderProcess? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              FileManager.default.isExecutableFile(atPath: path) else { return nil }
        return EncoderProcess(executable: path)
    }

    /// Whether a `bitmap` is worth a child process.
    func takes(_ bitmap: Bitmap) -> Bool { bitmap.width * bitmap.height >= minimumPixels }
}
