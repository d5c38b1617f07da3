/// Named option sets, as `name → "rs:fit:300:300/q:70"`, split into options once at startup. A
/// preset named `default` applies to every URL before its own options.
enum Presets {
    /// The name of the preset applied to every request.
    static let defaultName = "default"

    /// Each preset's options; throws naming a preset whose name is empty or whose text has a
    /// segment that is not `name:args`.
    static func parse(_ presets: [String: String]) throws(URLConfigurationError) -> [String: [URLOption]] {
        var parsed: [String: [URLOption]] = [:]
        for (name, text) in presets {
            guard !name.isEmpty else { throw URLConfigurationError("A preset has an empty name.") }
            var options: [URLOption] = []
            for segment in text.split(separator: "/") {
                guard let option = URLOption(segment: segment) else {
                    throw URLConfigurationError("Preset \"\(name)\": \"\(segment)\" is not an option (name:arguments).")
                }
                options.append(option)
            }
            parsed[name] = options
        }
        return parsed
    }
}
