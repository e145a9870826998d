@_exported import PhotonArguments

/// The CLI's commands run with a `CLIContext`.
public typealias CommandSpec = PhotonArguments.CommandSpec<CLIContext>
public typealias ParsedCommand = PhotonArguments.ParsedCommand<CLIContext>
public typealias ArgumentParser = PhotonArguments.ArgumentParser<CLIContext>
