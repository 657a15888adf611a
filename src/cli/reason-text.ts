// The sentences live beside the explanation they read (election/candidate-text.ts, pure); the CLI and the TUI
// import them from here.
export { candidateText, warmUpLeftText } from '../election/candidate-text';
