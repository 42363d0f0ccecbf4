import { describe, expect, it } from "vitest";
import { expand, variables } from "./uriTemplate";

describe("RFC 6570 templates", () => {
  it("finds the variables", () => {
    expect(variables("demo://resource/dynamic/text/{resourceId}")).toEqual(["resourceId"]);
    expect(variables("file:///{+path}{?q,lang}")).toEqual(["path", "q", "lang"]);
  });

  it("expands as the RFC's examples do", () => {
    const values = { var: "value", hello: "Hello World!", path: "/foo/bar", x: "1024", y: "768" };
    expect(expand("{var}", values)).toBe("value");
    expect(expand("{hello}", values)).toBe("Hello%20World%21");
    expect(expand("{+path}/here", values)).toBe("/foo/bar/here");
    expect(expand("map?{x,y}", values)).toBe("map?1024,768");
    expect(expand("{?x,y}", values)).toBe("?x=1024&y=768");
    expect(expand("{/var,x}/here", values)).toBe("/value/1024/here");
    expect(expand("{#path,x}/here", values)).toBe("#/foo/bar,1024/here");
    expect(expand("X{.var}", values)).toBe("X.value");
    expect(expand("{;x,y}", values)).toBe(";x=1024;y=768");
    expect(expand("{?x,missing}", values)).toBe("?x=1024");
  });
});
