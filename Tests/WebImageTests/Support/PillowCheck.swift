import Foundation

/// Pillow (python3's PIL), when the machine has it, as a second reader of the files the TIFF
/// encoder writes. Tests that use it are skipped without it; the fixtures never need it.
enum PillowCheck {
    /// python3 on the PATH with an importable PIL.
    static let available: Bool = {
        guard let python = python else { return false }
        guard let child = try? ChildProcess(python, ["-c", "import PIL"]) else { return false }
        return child.wait() == .exited(0)
    }()

    static let python: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
        .split(separator: ":").map { "\($0)/python3" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    struct Failed: Error {}

    /// The RGBA bytes Pillow decodes `data` to.
    static func rgbaPixels(of data: Data) async throws -> [UInt8] {
        guard let python else { throw Failed() }
        let dir = FileManager.default.temporaryDirectory
        let input = dir.appendingPathComponent("pillow-\(UUID().uuidString)")
        let output = input.appendingPathExtension("rgba")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try data.write(to: input)
        let script = "import sys; from PIL import Image; open(sys.argv[2], 'wb').write(Image.open(sys.argv[1]).convert('RGBA').tobytes())"
        let child = try ChildProcess(python, ["-c", script, input.path, output.path])
        let termination = await offThePool { child.wait() }
        guard termination == .exited(0) else { throw Failed() }
        return [UInt8](try Data(contentsOf: output))
    }
}
