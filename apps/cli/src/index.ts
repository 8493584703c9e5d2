export { deepnote, runCli, version } from "./Cli.js"
