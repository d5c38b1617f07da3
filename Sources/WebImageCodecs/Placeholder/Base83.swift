/// BlurHash's base-83 digits: a JSON-, HTML- and shell-safe alphabet, most significant digit first.
enum Base83 {
    /// The 83 digits, in value order.
    static let digits: [UInt8] = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// Each ASCII byte's digit value, or -1 for bytes outside the alphabet.
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (value, digit) in digits.enumerated() { table[Int(digit)] = Int8(value) }
        return table
    }()

    /// Appends `value` as exactly `length` digits; `value` must be in `0..<83^length`.
    static func append(_ value: Int, length: Int, to output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            output.append(digits[(value / divisor) % 83])
            divisor /= 83
        }
    }

    /// The value of `bytes[range]`, or nil when a byte is not a digit. `range` is at most 4
    /// digits, so the value fits easily.
    static func decode(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let digit = values[Int(bytes[index])]
            guard digit >= 0 else { return nil }
            value = value * 83 + Int(digit)
        }
        return value
    }
}
