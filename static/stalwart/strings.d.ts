/** One language's table of the widget's words, by key. */
declare const strings: Readonly<Record<string, string>>;
export default strings;
