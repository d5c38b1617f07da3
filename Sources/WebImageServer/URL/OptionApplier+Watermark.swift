extension OptionApplier {
    /// `opacity[:position[:x[:y[:scale]]]]`, imgproxy's grammar: the opacity 0–1 (0 turns the
    /// watermark off), a position (`ce`, `no`, `so`, `ea`, `we`, `noea`, `nowe`, `soea`, `sowe` or
    /// `re`), offsets (any finite number), a scale (0 or more). An empty or missing argument keeps
    /// the current value; two more arguments (imgproxy's paid ones) are accepted and ignored.
    func watermark(_ option: URLOption, current: ProcessingOptions.Watermark) throws(ImageURLError)
        -> ProcessingOptions.Watermark {
        try option.expect(atMost: 7)
        var watermark = current
        let arguments = option.arguments
        func given(_ index: Int) -> Bool { index < arguments.count && !arguments[index].isEmpty }
        guard let opacity = Double(arguments[0]), opacity >= 0, opacity <= 1 else {
            throw .invalidArgument(option.name, "\"\(arguments[0])\" is not an opacity (a number from 0 to 1).")
        }
        watermark.opacity = opacity
        if given(1) {
            guard let position = ProcessingOptions.WatermarkPosition(rawValue: arguments[1]) else {
                let names = ProcessingOptions.WatermarkPosition.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidArgument(option.name, "\"\(arguments[1])\" is not a watermark position (\(names)).")
            }
            watermark.position = position
        }
        if given(2) { watermark.x = try Self.offset(option, 2) }
        if given(3) { watermark.y = try Self.offset(option, 3) }
        if given(4) { watermark.scale = try option.number(4, atLeast: 0, "a watermark scale (0 or more)") }
        return watermark
    }

    private static func offset(_ option: URLOption, _ index: Int) throws(ImageURLError) -> Double {
        guard let value = Double(option.arguments[index]), value.isFinite else {
            throw .invalidArgument(option.name, "\"\(option.arguments[index])\" is not an offset (a number).")
        }
        return value
    }
}
