// The web: WebFetch (a URL and what was asked of it) and WebSearch (a query).

import type { ToolCall } from "../../store";
import { str } from "../../util";
import { Code, ErrorText, okContent, OutputBlock, ToolFrame } from "./frame";

export function WebView({ call }: { call: ToolCall }) {
  const url = str(call.input, "url");
  const query = str(call.input, "query");
  const prompt = str(call.input, "prompt");
  const content = okContent(call);
  return (
    <ToolFrame
      call={call}
      icon="globe"
      label={call.name === "WebSearch" ? "Search the web" : "Fetch"}
      summary={
        url ? (
          <a href={/^https?:/i.test(url) ? url : "#"} class="web-link" title={url}>
            {url}
          </a>
        ) : (
          <Code>{query ?? ""}</Code>
        )
      }
      sub={prompt ? <div class="muted small">{prompt}</div> : null}
      after={<ErrorText call={call} />}
      body={content ? <OutputBlock text={content} call={call} flag="outAll" /> : undefined}
    />
  );
}
