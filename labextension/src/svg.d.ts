/** SVG files are bundled as strings by the labextension builder. */
declare module '*.svg' {
  const svg: string;
  export default svg;
}
