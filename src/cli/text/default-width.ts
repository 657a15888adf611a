/** The width of a terminal nobody resized, and of a pipe (which has none): output must fit it. */
export const STATUS_DEFAULT_WIDTH = 80;
