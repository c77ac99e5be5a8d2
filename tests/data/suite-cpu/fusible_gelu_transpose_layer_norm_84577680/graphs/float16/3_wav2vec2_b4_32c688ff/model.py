import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_feature_projection_modules_layer_norm_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_feature_projection_modules_layer_norm_parameters_bias_: torch.nn.parameter.Parameter, conv1d_2: torch.Tensor):
        l_self_modules_feature_projection_modules_layer_norm_parameters_weight_ = L_self_modules_feature_projection_modules_layer_norm_parameters_weight_
        l_self_modules_feature_projection_modules_layer_norm_parameters_bias_ = L_self_modules_feature_projection_modules_layer_norm_parameters_bias_
        gelu_2 = torch._C._nn.gelu(conv1d_2);  conv1d_2 = None
        transpose = gelu_2.transpose(1, 2);  gelu_2 = None
        layer_norm = torch.nn.functional.layer_norm(transpose, (32,), l_self_modules_feature_projection_modules_layer_norm_parameters_weight_, l_self_modules_feature_projection_modules_layer_norm_parameters_bias_, 1e-05);  transpose = l_self_modules_feature_projection_modules_layer_norm_parameters_weight_ = l_self_modules_feature_projection_modules_layer_norm_parameters_bias_ = None
        return (layer_norm,)
