/// The options only `/info` reads: `bh:X:Y` (`blurhash`) asks for a BlurHash of X × Y
/// components (each 1–9; `bh:0` or `bh:0:0` for none), `th:1` (`thumbhash`) for a ThumbHash.
struct InfoOptions: Sendable, Equatable {
    /// BlurHash components, when asked.
    var blurhash: (x: Int, y: Int)?
    /// Whether a ThumbHash is asked for.
    var thumbhash = false

    /// The option names `/info` takes out of the URL before the processing options are read.
    static let names: Set<String> = ["bh", "blurhash", "th", "thumbhash"]

    init(_ options: [URLOption]) throws(ImageURLError) {
        for option in options {
            switch option.name {
            case "bh", "blurhash":
                try option.expect(atMost: 2)
                let x = try option.integer(0, in: 0...9, "a number of components (0–9)")
                let y = option.arguments.count > 1 ? try option.integer(1, in: 0...9, "a number of components (0–9)") : x
                guard (x == 0) == (y == 0) else {
                    throw .invalidArgument(option.name, "takes X:Y components, each 1–9, or 0 for none.")
                }
                blurhash = x == 0 ? nil : (x, y)
            default:
                thumbhash = try option.bool()
            }
        }
    }

    static func == (lhs: InfoOptions, rhs: InfoOptions) -> Bool {
        lhs.blurhash?.x == rhs.blurhash?.x && lhs.blurhash?.y == rhs.blurhash?.y && lhs.thumbhash == rhs.thumbhash
    }
}
