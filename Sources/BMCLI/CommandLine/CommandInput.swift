import Journal

/// What a command reads from its command line, as one value with typed fields: in the spirit
/// of swift-argument-parser's `ParsableArguments`, but declared as a list of ``Parameter``s
/// rather than property wrappers. A parameter names its field by key path, so a field cannot
/// be misspelled or read under a name that was never declared, and every conversion error
/// comes from ``decode(_:with:now:)``, the one place a command's values are read.
///
/// `init()` gives each field its value for when the parameter is absent. A field that
/// decoding always sets (a required argument, which the parser has made sure of; a required
/// option; a time that defaults to now) starts with a placeholder.
protocol CommandInput {
    init()
}

extension CommandInput {
    /// The input `invocation` gives, its parameters read in declaration order (the help's
    /// order), so the first malformed value there is the one reported.
    static func decode(_ invocation: Invocation, with parameters: [Parameter<Self>], now: Timestamp) throws(CLIError) -> Self {
        var input = Self()
        for parameter in parameters { try parameter.decode(&input, invocation, now) }
        return input
    }
}

/// A command that declares no argument and no option.
struct NoInput: CommandInput {
    static var parameters: [Parameter<NoInput>] { [] }
}

/// One argument or option of a command, and the field of `Input` its value goes to: the
/// parser and the help read `spec`, ``CommandInput/decode(_:with:now:)`` runs `decode`.
///
/// Conversions throw ``CLIError/invalidValue(_:)``, whose message names the option and the
/// forms it accepts, never the text given.
struct Parameter<Input> {
    enum Spec {
        case argument(ArgumentSpec)
        case option(OptionSpec)
    }

    let spec: Spec
    fileprivate let decode: (inout Input, Invocation, Timestamp) throws(CLIError) -> Void

    var argumentSpec: ArgumentSpec? {
        if case .argument(let spec) = spec { spec } else { nil }
    }

    var optionSpec: OptionSpec? {
        if case .option(let spec) = spec { spec } else { nil }
    }
}

extension Parameter {
    /// A flag: true when given.
    static func flag(_ field: WritableKeyPath<Input, Bool>, _ spec: OptionSpec) -> Parameter {
        assert(spec.isFlag, "--\(spec.name) takes a value")
        return Parameter(spec: .option(spec)) { input, invocation, _ in input[keyPath: field] = invocation.flag(spec.name) }
    }

    /// An option's text as given (the last, if given more than once); nil when absent.
    static func option(_ field: WritableKeyPath<Input, String?>, _ spec: OptionSpec) -> Parameter {
        option(field, spec) { text in text }
    }

    /// An option converted by `convert` (the last value, if given more than once). Absent,
    /// the field keeps its initial value.
    static func option<Value>(
        _ field: WritableKeyPath<Input, Value>, _ spec: OptionSpec, _ convert: @escaping (String) throws(CLIError) -> Value
    ) -> Parameter {
        assert(!spec.isFlag, "--\(spec.name) is a flag")
        return Parameter(spec: .option(spec)) { (input, invocation, _) throws(CLIError) in
            if let text = invocation.option(spec.name) { input[keyPath: field] = try convert(text) }
        }
    }

    /// An option the command cannot do without, converted by `convert`: shown without
    /// brackets in usage lines; absent, this fails with `missing`, which says what to give
    /// (the parser itself never requires an option).
    static func option<Value>(
        _ field: WritableKeyPath<Input, Value>, _ spec: OptionSpec, missing: String,
        _ convert: @escaping (String) throws(CLIError) -> Value
    ) -> Parameter {
        assert(!spec.isFlag, "--\(spec.name) is a flag")
        var spec = spec
        spec.isRequired = true
        return Parameter(spec: .option(spec)) { (input, invocation, _) throws(CLIError) in
            guard let text = invocation.option(spec.name) else { throw .invalidValue(missing) }
            input[keyPath: field] = try convert(text)
        }
    }

    /// An option the command cannot do without whose empty value counts as none
    /// (`--out ""` is as good as no `--out`); both fail with `missing`.
    static func nonEmptyOption(_ field: WritableKeyPath<Input, String>, _ spec: OptionSpec, missing: String) -> Parameter {
        option(field, spec, missing: missing) { (text) throws(CLIError) in
            guard !text.isEmpty else { throw .invalidValue(missing) }
            return text
        }
    }

    /// Every value of a repeatable option, in the order given.
    static func options(_ field: WritableKeyPath<Input, [String]>, _ spec: OptionSpec) -> Parameter {
        assert(spec.isRepeatable, "--\(spec.name) is not repeatable")
        return Parameter(spec: .option(spec)) { input, invocation, _ in input[keyPath: field] = invocation.options(spec.name) }
    }

    /// A time (``ValueParsing/time(_:option:now:timeZone:)``); nil when absent.
    static func time(_ field: WritableKeyPath<Input, ValueParsing.GivenTime?>, _ spec: OptionSpec) -> Parameter {
        assert(!spec.isFlag, "--\(spec.name) is a flag")
        return Parameter(spec: .option(spec)) { (input, invocation, now) throws(CLIError) in
            if let text = invocation.option(spec.name) { input[keyPath: field] = try ValueParsing.time(text, option: spec.name, now: now) }
        }
    }

    /// A time (``ValueParsing/time(_:option:now:timeZone:)``); absent, the moment the
    /// command runs: the same `now` that `now` and `HH:MM` in its other times mean.
    static func time(_ field: WritableKeyPath<Input, ValueParsing.GivenTime>, _ spec: OptionSpec) -> Parameter {
        assert(!spec.isFlag, "--\(spec.name) is a flag")
        return Parameter(spec: .option(spec)) { (input, invocation, now) throws(CLIError) in
            input[keyPath: field] = ValueParsing.GivenTime(timestamp: now, isTimeOfDay: false)
            if let text = invocation.option(spec.name) { input[keyPath: field] = try ValueParsing.time(text, option: spec.name, now: now) }
        }
    }

    /// A day, a week or a moment for a listing filter (``ValueParsing/period(_:option:now:timeZone:)``); nil when absent.
    static func period(_ field: WritableKeyPath<Input, ValueParsing.Period?>, _ spec: OptionSpec) -> Parameter {
        assert(!spec.isFlag, "--\(spec.name) is a flag")
        return Parameter(spec: .option(spec)) { (input, invocation, now) throws(CLIError) in
            if let text = invocation.option(spec.name) { input[keyPath: field] = try ValueParsing.period(text, option: spec.name, now: now) }
        }
    }

    /// A positional's text. Absent (an optional positional not given), nil.
    static func argument(_ field: WritableKeyPath<Input, String?>, _ spec: ArgumentSpec) -> Parameter {
        argument(field, spec) { text in text }
    }

    /// A required positional's text.
    static func argument(_ field: WritableKeyPath<Input, String>, _ spec: ArgumentSpec) -> Parameter {
        argument(field, spec) { text in text }
    }

    /// Every remaining positional, in the order given (the last argument, variadic).
    static func arguments(_ field: WritableKeyPath<Input, [String]>, _ spec: ArgumentSpec) -> Parameter {
        assert(spec.isVariadic, "<\(spec.name)> is not variadic")
        return Parameter(spec: .argument(spec)) { input, invocation, _ in input[keyPath: field] = invocation.arguments(spec.name) }
    }

    /// A positional converted by `convert`. Absent (an optional positional not given), the
    /// field keeps its initial value; the parser has rejected a command line without a
    /// required one.
    static func argument<Value>(
        _ field: WritableKeyPath<Input, Value>, _ spec: ArgumentSpec, _ convert: @escaping (String) throws(CLIError) -> Value
    ) -> Parameter {
        assert(!spec.isVariadic, "<\(spec.name)> is variadic")
        return Parameter(spec: .argument(spec)) { (input, invocation, _) throws(CLIError) in
            if let text = invocation.argument(spec.name) { input[keyPath: field] = try convert(text) }
        }
    }
}

extension CommandSpec {
    /// A command whose arguments and options are `parameters`, and whose `run` receives them
    /// decoded as one `Input`: the only way bmvault's commands read their command line.
    init<Input: CommandInput>(
        name: String, abstract: String, discussion: String? = nil, parameters: [Parameter<Input>],
        subcommands: [CommandSpec] = [], run: @escaping (Input) throws -> Void
    ) {
        self.init(
            name: name, abstract: abstract, discussion: discussion,
            arguments: parameters.compactMap(\.argumentSpec), options: parameters.compactMap(\.optionSpec),
            subcommands: subcommands
        ) { invocation, now in
            try run(Input.decode(invocation, with: parameters, now: now))
        }
    }
}
