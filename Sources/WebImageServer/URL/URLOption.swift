import WebImage

/// One processing option as written in a URL or a preset, `name:arg1:arg2…`, with readers for its
/// arguments that name the option in the error when one is wrong.
struct URLOption: Sendable, Equatable {
    var name: String
    var arguments: [String]

    /// The option a segment spells, or nil when it has no `:` (so it is not an option).
    init?(segment: some StringProtocol) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return nil }
        name = String(parts[0])
        arguments = parts[1...].map { String($0) }
    }

    init(name: String, arguments: [String]) {
        self.name = name
        self.arguments = arguments
    }

    /// Refuses more than `count` arguments.
    func expect(atMost count: Int) throws(ImageURLError) {
        guard arguments.count <= count else {
            throw .invalidArgument(name, "takes at most \(count) argument\(count == 1 ? "" : "s"), got \(arguments.count) (\(arguments.joined(separator: ":"))).")
        }
    }

    /// Go's `strconv.ParseBool`; anything else (the empty string included) counts as false, as in imgproxy.
    static func bool(_ text: String) -> Bool {
        switch text {
        case "1", "t", "T", "TRUE", "true", "True": true
        default: false
        }
    }

    /// The only argument as a boolean.
    func bool() throws(ImageURLError) -> Bool {
        try expect(atMost: 1)
        return Self.bool(arguments[0])
    }

    /// Argument `index` as a whole number in `range`; `what` says what it is for the message.
    func integer(_ index: Int, in range: ClosedRange<Int>, _ what: String) throws(ImageURLError) -> Int {
        let text = arguments[index]
        guard let value = Int(text), range.contains(value) else {
            throw .invalidArgument(name, "\"\(text)\" is not \(what).")
        }
        return value
    }

    /// Argument `index` as a finite number of at least `minimum` (above it when `exclusive`).
    func number(_ index: Int, atLeast minimum: Double, exclusive: Bool = false, _ what: String) throws(ImageURLError) -> Double {
        let text = arguments[index]
        guard let value = Double(text), value.isFinite, exclusive ? value > minimum : value >= minimum else {
            throw .invalidArgument(name, "\"\(text)\" is not \(what).")
        }
        return value
    }

    /// The gravity spelled by the arguments from `start`: `type[:x:y]`, `fp:x:y` (x, y in 0...1, both
    /// required) or `sm` (no offsets). Types outside `allowed` are refused.
    func gravity(from start: Int, allowed: [ProcessingOptions.GravityType]) throws(ImageURLError)
        -> ProcessingOptions.Gravity {
        let parts = Array(arguments[start...])
        guard let type = ProcessingOptions.GravityType(rawValue: parts[0]), allowed.contains(type) else {
            throw .invalidArgument(name, "\"\(parts[0])\" is not a gravity here (\(allowed.map(\.rawValue).joined(separator: ", "))).")
        }
        switch type {
        case .smart:
            guard parts.count == 1 else { throw .invalidArgument(name, "smart gravity (sm) takes no offsets.") }
            return ProcessingOptions.Gravity(.smart)
        case .focusPoint:
            guard parts.count == 3 else { throw .invalidArgument(name, "a focus point is fp:x:y, both given.") }
        default:
            guard parts.count <= 3 else { throw .invalidArgument(name, "a gravity is type[:x:y]; too many arguments.") }
        }
        var offsets = [0.0, 0.0]
        for axis in 0..<2 where parts.count > axis + 1 {
            let text = parts[axis + 1]
            guard let value = Double(text), value.isFinite,
                  type != .focusPoint || (0...1).contains(value) else {
                throw .invalidArgument(name, type == .focusPoint
                    ? "focus point coordinate \"\(text)\" is not a number from 0 to 1."
                    : "gravity offset \"\(text)\" is not a number.")
            }
            offsets[axis] = value
        }
        return ProcessingOptions.Gravity(type, x: offsets[0], y: offsets[1])
    }

    /// The output formats a URL may name, by imgproxy's names.
    static let formats: [String: ImageFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "webp": .webp, "avif": .avif, "gif": .gif,
        "ico": .ico, "heic": .heic, "bmp": .bmp, "tiff": .tiff, "jxl": .jpegXL, "svg": .svg,
    ]

    /// The format named `text` (any case), or an error naming this option.
    func format(_ text: String) throws(ImageURLError) -> ImageFormat {
        guard let format = Self.formats[text.lowercased()] else {
            throw .invalidArgument(name, "\"\(text)\" is not a supported format (\(Self.formats.keys.sorted().joined(separator: ", "))).")
        }
        return format
    }

    /// Sets the output format named `text`, or `best` (``ProcessingOptions/bestFormat``); each
    /// replaces the other.
    func applyFormat(_ text: String, to options: inout ProcessingOptions) throws(ImageURLError) {
        if text.lowercased() == "best" {
            options.format = nil
            options.bestFormat = true
        } else if let format = Self.formats[text.lowercased()] {
            options.format = format
            options.bestFormat = false
        } else {
            throw .invalidArgument(name, "\"\(text)\" is not a supported format (\(Self.formats.keys.sorted().joined(separator: ", ")), or best).")
        }
    }

    /// A hex colour, `rgb` or `rrggbb`, opaque.
    func hexColor(_ text: String) throws(ImageURLError) -> RGBA {
        let digits = Array(text.utf8).map(HexDigit.value)
        guard digits.count == 3 || digits.count == 6, !digits.contains(nil) else {
            throw .invalidArgument(name, "\"\(text)\" is not a colour: R:G:B or hex rgb / rrggbb.")
        }
        let values = digits.map { $0! }
        if values.count == 3 {
            return RGBA(r: values[0] * 17, g: values[1] * 17, b: values[2] * 17)
        }
        return RGBA(r: values[0] << 4 | values[1], g: values[2] << 4 | values[3], b: values[4] << 4 | values[5])
    }
}
